"""The action registry: what an action needs from the world, and what the senses report if not.

Preconditions are checked against world facts only when the action executes; a failed action
reports only what can be noticed (the door did not open), never the hidden cause. A user adds an
action with `register` without touching the tick loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .world import World


@dataclass(frozen=True)
class Action:
    name: str
    precondition: Callable[[World, str], bool]  # (world, target) → can it succeed now?
    sensed_on_failure: str  # what the agent notices when it fails
    minutes: int = 5


REGISTRY: dict[str, Action] = {}


def register(action: Action) -> Action:
    if action.name in REGISTRY:
        raise ValueError(f"action {action.name!r} is already registered")
    REGISTRY[action.name] = action
    return action


def _shop_open(world: World, target: str) -> bool:
    return bool(world.facts.get(f"{target}.open", False))


register(Action("buy_bread", _shop_open, "the door did not open"))
register(Action("buy", _shop_open, "the door did not open"))
