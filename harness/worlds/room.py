"""The room's physics (design §3, the room ecology): sleep, meals and their empty boxes, the
project (its stages, materials and lasting work come from the scenario's `world.project`), the
lamp that gathers dust with use after dark and whose contact may work loose, looking at what a
shelf holds, and calling for help (nobody answers).

World facts used: `lamp.at` (the place the lamp is), `lamp.contact` (ok / loose), `lamp.dust`
(0..1), `project.stage`. Meals are the resource `meal`, eaten where they are kept, each leaving a
`box` in hand to throw away.
"""

from __future__ import annotations

from typing import Any

from harness.engine.actions import Action
from harness.engine.world import Move, World

LAMP_DUST_PER_SESSION = 0.1  # the lamp degrades with use
LAMP_DIM_AT = 0.8  # this much dust and the lamp no longer lights the work
THICK_DUST = 0.5  # from here an inspection sees the shade "thick with dust"


def has_light(world: World) -> bool:
    """Daylight, or a lamp with good contact that dust has not dimmed."""
    lamp_ok = (
        world.facts.get("lamp.contact", "ok") == "ok"
        and float(world.facts.get("lamp.dust", 0.0)) < LAMP_DIM_AT
    )
    return world.is_daylight() or lamp_ok


def contents(world: World, actor: str, target: str, item: str | None) -> str:
    """What a place holds, as the senses report it: "paint:2,paper:0"."""
    return ",".join(f"{r}:{n}" for h, r, n in world.inventory() if h == target)


def inspect_report(world: World, actor: str, target: str, item: str | None) -> str:
    """What looking closely shows: the lamp where it is, or what a shelf holds."""
    if target == world.facts.get("lamp.at"):
        contact = "loose" if world.facts.get("lamp.contact") == "loose" else "firm"
        dust = float(world.facts.get("lamp.dust", 0.0))
        grime = (
            "thick with dust" if dust >= THICK_DUST else "a little dusty" if dust > 0 else "clean"
        )
        return f"the lamp's contact is {contact} and the shade is {grime}"
    return contents(world, actor, target, item)


def _set(fact: str, value: object):  # type: ignore[no-untyped-def]
    def effect(world: World, actor: str, target: str, item: str | None) -> list[Move]:
        world.facts[fact] = value  # type: ignore[assignment]
        return []

    return effect


def _eat(world: World, actor: str, target: str, item: str | None) -> list[Move]:
    return world.consume("meal", target) + world.create("box", actor)


def project_action(scenario: Any) -> Action:
    """The project's action: the next stage, with light and its material in hand; the last
    stage leaves the lasting work (paper and paint became a painting on the wall)."""
    project = scenario.world.project
    if project is None:
        raise ValueError("harness.worlds.room needs world.project (its stages and action)")
    stages = tuple(s.id for s in project.stages)
    needs = {s.id: s.uses for s in project.stages if s.uses}

    def next_stage(world: World) -> str:
        done = str(world.facts.get("project.stage", "none"))
        if done not in stages or done == stages[-1]:
            return stages[0]
        return stages[stages.index(done) + 1]

    def can(world: World, actor: str, target: str, item: str | None) -> bool:
        stage = next_stage(world)
        need = needs.get(stage)
        return item == stage and has_light(world) and (need is None or world.count(actor, need) > 0)

    def work(world: World, actor: str, target: str, item: str | None) -> list[Move]:
        if not world.is_daylight():
            dust = float(world.facts.get("lamp.dust", 0.0)) + LAMP_DUST_PER_SESSION
            world.facts["lamp.dust"] = round(dust, 6)
        world.facts["project.stage"] = item or ""
        need = needs.get(item or "")
        moves = world.consume(need, actor) if need else []
        if item == stages[-1] and project.makes is not None:
            moves += world.create(project.makes.resource, project.makes.holder)
        return moves

    return Action(project.action, can, "could not get on with it", work, minutes=60, milestone=True)


def actions(scenario: Any) -> list[Action]:
    return [
        Action("sleep", lambda w, a, t, i: True, "could not settle"),
        Action(
            "eat",
            lambda w, a, t, i: w.count(t, "meal") > 0,
            "the shelf was empty",
            _eat,
            minutes=20,
        ),
        Action(
            "tidy",
            lambda w, a, t, i: w.count(a, "box") > 0,
            "nothing to throw away",
            lambda w, a, t, i: w.transfer("box", a, t),
            minutes=2,
        ),
        project_action(scenario),
        Action("wash", lambda w, a, t, i: True, "", minutes=10),
        Action("inspect", lambda w, a, t, i: True, "", minutes=5, report=inspect_report),
        # looking for a material one has run out of: what the place holds (a decision point
        # can name where the agent looked)
        Action("search", lambda w, a, t, i: True, "", minutes=3, report=contents),
        Action("clean", lambda w, a, t, i: True, "", _set("lamp.dust", 0.0), minutes=10),
        Action(
            "recontact",
            lambda w, a, t, i: w.facts.get("lamp.contact") == "loose",
            "the contact would not hold",
            _set("lamp.contact", "ok"),
            minutes=10,
        ),
        Action(
            "ask_for_help",
            lambda w, a, t, i: True,
            "",
            minutes=2,
            report=lambda w, a, t, i: "no answer",
        ),
        Action("look_around", lambda w, a, t, i: True, "", minutes=15),
    ]
