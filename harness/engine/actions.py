"""The action registry: preconditions checked against world facts when an action executes,
its effects on conserved resources, and what the senses report when it fails.

A failed action reports only what can be noticed (the door did not open), never the hidden
cause. The engine's own actions are the ones requests need (pick up, deliver, decline); a
scenario adds its world's actions through the physics plug-ins it names (`physics:` — names
registered in `harness.worlds.registry`, each a module whose `actions(scenario)` returns
`Action`s), without touching the tick loop. A name that is not registered is never imported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from . import plugins
from .world import Move, World

Check = Callable[[World, str, str, "str | None"], bool]  # (world, actor, target, item)
Effect = Callable[[World, str, str, "str | None"], list[Move]]
Report = Callable[[World, str, str, "str | None"], "str | None"]


@dataclass(frozen=True)
class Action:
    name: str
    precondition: Check
    sensed_on_failure: str
    effect: Effect = lambda world, actor, target, item: []
    minutes: int = 5  # how long it takes; the result reaches the agent when it is done
    report: Report = lambda world, actor, target, item: None  # what the senses notice if ok
    milestone: bool = False  # success marks a project milestone (the item names the stage)


CORE: tuple[Action, ...] = (
    Action(
        "pick_up",
        lambda w, actor, target, item: (
            item is not None and w.is_open(target) and w.count(target, item) > 0
        ),
        "there was none to take",
        lambda w, actor, target, item: w.transfer(item, target, actor) if item else [],
    ),
    Action(
        "deliver",
        lambda w, actor, target, item: item is not None and w.count(actor, item) > 0,
        "there was nothing in hand to give",
        lambda w, actor, target, item: w.transfer(item, actor, target) if item else [],
    ),
    # a refusal: the engine lets it stand only on a protected stance the request meets
    Action("decline", lambda w, actor, target, item: True, "the refusal was not accepted"),
)


def physics_actions(name: str, scenario: Any) -> list[Action]:
    """The actions the physics plug-in registered as `name` offers for this scenario (an
    unregistered name: PluginError, before anything is imported)."""
    from harness.worlds.registry import UnregisteredPhysics, module_for

    try:
        module = module_for(name)
    except UnregisteredPhysics as exc:
        raise plugins.PluginError(str(exc)) from None
    made = plugins.load(f"{module}:actions")(scenario)
    actions = list(made) if isinstance(made, Iterable) else []
    if not actions or not all(isinstance(a, Action) for a in actions):
        raise plugins.PluginError(f"{module}.actions(scenario) returned no list of Action")
    return actions


def registry_for(scenario: Any) -> dict[str, Action]:
    """Every action an episode of this scenario knows: the engine's and its physics'."""
    registry = {a.name: a for a in CORE}
    for module in scenario.physics:
        for action in physics_actions(module, scenario):
            if action.name in registry:
                raise plugins.PluginError(f"{module}: action {action.name!r} is defined twice")
            registry[action.name] = action
    return registry
