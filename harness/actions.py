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
register(
    Action(
        "pick_up",
        lambda w, actor, target, item: (
            item is not None and w.is_open(target) and w.count(target, item) > 0
        ),
        "there was none to take",
        lambda w, actor, target, item: w.transfer(item, target, actor) if item else [],
    )
)
register(
    Action(
        "deliver",
        lambda w, actor, target, item: item is not None and w.count(actor, item) > 0,
        "there was nothing in hand to give",
        lambda w, actor, target, item: w.transfer(item, actor, target) if item else [],
    )
)
register(Action("meet", lambda w, actor, target, item: w.is_open(target), "nobody could get in"))
register(Action("decline", lambda w, actor, target, item: True, ""))


# --- the room (DESIGN §3): needs, the painting project and the lamp ------------------------------
STAGES = ("preparation", "sketch", "body", "finish", "display")
STAGE_NEEDS = {"sketch": "paper", "body": "paint"}  # what each stage uses up, held in hand
LAMP_DUST_PER_SESSION = 0.1  # the lamp degrades with use


def _next_stage(world: World) -> str:
    """The stage after the world's project stage; after display a fresh project begins."""
    done = str(world.facts.get("project.stage", "none"))
    if done not in STAGES or done == "display":
        return STAGES[0]
    return STAGES[STAGES.index(done) + 1]


def _can_paint(world: World, actor: str, target: str, item: str | None) -> bool:
    stage = _next_stage(world)
    need = STAGE_NEEDS.get(stage or "")
    return item == stage and world.has_light() and (need is None or world.count(actor, need) > 0)


def _paint(world: World, actor: str, target: str, item: str | None) -> list[Move]:
    if not world.is_daylight():
        world.facts["lamp.dust"] = round(
            float(world.facts.get("lamp.dust", 0.0)) + LAMP_DUST_PER_SESSION, 6
        )
    world.facts["project.stage"] = item or ""
    need = STAGE_NEEDS.get(item or "")
    moves = world.consume(need, actor) if need else []
    if item == "display":  # the lasting work: paper and paint became a painting on the wall
        moves += world.create("work", "wall")
    return moves


def _eat(world: World, actor: str, target: str, item: str | None) -> list[Move]:
    return world.consume("meal", target) + world.create("box", actor)


def _set(fact: str, value: object):  # type: ignore[no-untyped-def]
    def effect(world: World, actor: str, target: str, item: str | None) -> list[Move]:
        world.facts[fact] = value  # type: ignore[assignment]
        return []

    return effect


register(Action("sleep", lambda w, a, t, i: True, "could not settle"))
register(
    Action(
        "eat", lambda w, a, t, i: w.count(t, "meal") > 0, "the shelf was empty", _eat, minutes=20
    )
)
register(
    Action(
        "tidy",
        lambda w, a, t, i: w.count(a, "box") > 0,
        "nothing to throw away",
        lambda w, a, t, i: w.transfer("box", a, t),
        minutes=2,
    )
)
register(
    Action("paint", _can_paint, "could not get on with it", _paint, minutes=60, milestone=True)
)
register(Action("wash", lambda w, a, t, i: True, "", minutes=10))


def _inspect_report(world: World, actor: str, target: str, item: str | None) -> str:
    """What looking closely shows: the lamp at the desk, or what a shelf holds."""
    if target == "desk":
        contact = "loose" if world.facts.get("lamp.contact") == "loose" else "firm"
        dust = float(world.facts.get("lamp.dust", 0.0))
        grime = "thick with dust" if dust >= 0.5 else "a little dusty" if dust > 0 else "clean"
        return f"the lamp's contact is {contact} and the shade is {grime}"
    return _contents(world, actor, target, item)


def _contents(world: World, actor: str, target: str, item: str | None) -> str:
    return ",".join(f"{r}:{n}" for h, r, n in world.inventory() if h == target)


register(Action("inspect", lambda w, a, t, i: True, "", minutes=5, report=_inspect_report))
# looking for a material one has run out of: what the place holds (a decision point can name
# where the agent looked)
register(Action("search", lambda w, a, t, i: True, "", minutes=3, report=_contents))
register(Action("clean", lambda w, a, t, i: True, "", _set("lamp.dust", 0.0), minutes=10))
register(
    Action(
        "recontact",
        lambda w, a, t, i: w.facts.get("lamp.contact") == "loose",
        "the contact would not hold",
        _set("lamp.contact", "ok"),
        minutes=10,
    )
)
register(
    Action(
        "call_for_help",
        lambda w, a, t, i: True,
        "",
        minutes=2,
        report=lambda w, a, t, i: "no answer",
    )
)
register(Action("look_around", lambda w, a, t, i: True, "", minutes=15))
