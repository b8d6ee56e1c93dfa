"""What only the engine can check in a scenario: that its physics plug-ins are registered and
load, and that every action it names (errands, decision points, requests, an autonomous agent's
project, practices and repairs) is one its world offers. Reported like every scenario error: file, line, path,
expectation (`load_checked`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.worlds.registry import UnregisteredPhysics, module_for
from scenarios import Scenario, load_scenario
from scenarios.checks import DEFAULT, Bounds

from .actions import CORE, physics_actions

Location = tuple[str | int, ...]


def scenario_problems(scenario: Scenario) -> Iterator[tuple[Location, str]]:
    known = {a.name for a in CORE}
    for i, name in enumerate(scenario.physics):
        try:
            module_for(name)  # before anything is imported: only a registered name is
        except UnregisteredPhysics as exc:
            yield ("physics", i), str(exc)
            continue
        try:
            offered = [a.name for a in physics_actions(name, scenario)]
        except Exception as exc:  # noqa: BLE001 - a plug-in's own failure is the scenario's problem to report
            yield ("physics", i), f"{exc}; expected a module whose actions(scenario) gives Actions"
            continue
        for name in offered:
            if name in known:
                yield ("physics", i), f"action {name!r} is defined twice"
            known.add(name)
    expected = ", ".join(sorted(known))

    def action(name: str, where: Location) -> Iterator[tuple[Location, str]]:
        if name not in known:
            yield (
                where,
                (
                    f"unknown action {name!r}; expected one of {expected} (the engine's own and "
                    "those of the physics plug-ins this scenario names)"
                ),
            )

    for i, agent in enumerate(scenario.agents):
        for j, errand in enumerate(agent.errands):
            yield from action(errand.action, ("agents", i, "errands", j, "action"))
        for name in sorted(agent.knows_where):
            yield from action(name, ("agents", i, "knows_where", name))
        if agent.autonomy == "needs":
            yield from _autonomous(agent, ("agents", i), action)
    for i, dp in enumerate(scenario.decision_points):
        yield from action(dp.action, ("decision_points", i, "action"))
    for i, request in enumerate(scenario.requests):
        yield from action(request.action, ("requests", i, "action"))


def _autonomous(agent: Any, where: Location, action: Any) -> Iterator[tuple[Location, str]]:
    for j, practice in enumerate(agent.persona.practices):
        yield from action(practice.action, (*where, "persona", "practices", j, "action"))
    if agent.room is not None:
        yield from action(agent.room.project.action, (*where, "room", "project", "action"))
        for j, fault in enumerate(agent.room.light.faults):
            yield from action(fault.fix, (*where, "room", "light", "faults", j, "fix"))


def load_checked(name_or_path: str | Path, bounds: Bounds = DEFAULT) -> Scenario:
    """A scenario file, validated down to the actions it names (InputError, located)."""
    return load_scenario(name_or_path, checks=(scenario_problems,), bounds=bounds)
