"""The action registry: preconditions checked against world facts when an action executes,
its effects on conserved resources, and what the senses report when it fails.

A failed action reports only what can be noticed (the door did not open), never the hidden
cause. A user adds an action with `register` without touching the tick loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .world import Move, World

Check = Callable[[World, str, str, "str | None"], bool]  # (world, actor, target, item)
Effect = Callable[[World, str, str, "str | None"], list[Move]]


@dataclass(frozen=True)
class Action:
    name: str
    precondition: Check
    sensed_on_failure: str
    effect: Effect = lambda world, actor, target, item: []
    minutes: int = 5


REGISTRY: dict[str, Action] = {}


def register(action: Action) -> Action:
    if action.name in REGISTRY:
        raise ValueError(f"action {action.name!r} is already registered")
    REGISTRY[action.name] = action
    return action


def _buyable(resource: str) -> Check:
    return lambda w, actor, target, item: w.is_open(target) and w.count(target, resource) > 0


def _buy(resource: str) -> Effect:
    return lambda w, actor, target, item: w.transfer(resource, target, actor)


register(Action("buy_bread", _buyable("bread"), "the door did not open", _buy("bread")))
register(Action(
    "pick_up",
    lambda w, actor, target, item: item is not None and w.is_open(target)
    and w.count(target, item) > 0,
    "there was none to take",
    lambda w, actor, target, item: w.transfer(item, target, actor) if item else []))
register(Action(
    "deliver",
    lambda w, actor, target, item: item is not None and w.count(actor, item) > 0,
    "there was nothing in hand to give",
    lambda w, actor, target, item: w.transfer(item, actor, target) if item else []))
register(Action("meet", lambda w, actor, target, item: w.is_open(target),
                "nobody could get in"))
register(Action("decline", lambda w, actor, target, item: True, ""))
