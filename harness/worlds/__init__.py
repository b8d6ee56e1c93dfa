"""World physics a scenario names (`physics: [harness.worlds.village]`): each module's
`actions(scenario)` returns the actions that world offers beyond the engine's own. They live
outside the engine, so another world is a new module and a scenario file, not an engine change.
"""
