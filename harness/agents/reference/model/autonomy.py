"""Autonomy: what an agent on its own chooses to do next, from needs, projects and practices.

Candidates are generated from the agent's view (what it holds, believes about its light and
its project, its life state) and from what it knows of its room (`RoomKnowledge`: where it
sleeps and eats, its clocks, its project's stages, its light's faults): no place or clock is
written here. Protected stances veto before scoring ("rule conflict", see `arbitration`), the
rest is scored and the best chosen. Pure functions; the autonomy component calls them.
Every state earns its place here: hunger and energy make candidates, mood and joy tilt the
project, stress pushes towards rest, skill confidence picks where to paint. When the project
needs a material the agent knows of nowhere, it looks first where its memory points (the
agent retrieves the leads; see `unsourced`), then where the material usually is, each once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from scenarios import MINUTES_PER_DAY, day_of
from scenarios.persona import Persona
from scenarios.room import RoomKnowledge

from . import life

OK, FLICKERING = "ok", "flickering"  # how the light seems, besides a fault found


@dataclass(frozen=True)
class Candidate:
    action: str
    target: str
    score: float
    item: str | None = None
    minutes: int | None = None
    reason: str = ""


@dataclass(frozen=True)
class Mind:
    """What an autonomous agent knows about its room and what it is doing."""

    holding: dict[str, int] = field(default_factory=dict)
    stock: dict[str, int] = field(default_factory=dict)  # "place|resource" → believed count
    stage: str = "none"  # the last project stage it finished
    fixture: str = OK  # how its light seems: ok / flickering / a fault an inspection found
    asleep_until: int | None = None
    doing: str | None = None  # the action under way
    committed_until: int | None = None  # a commitment may not be preempted before this
    practiced: dict[str, int] = field(default_factory=dict)  # practice id → day done
    light: life.NeedTracker | None = None  # the light as a need: tried repairs, help asked
    # a material known of nowhere: the places memory suggested for it (consulted once per
    # shortage), and the "place|resource" already searched since the last new evidence
    leads: dict[str, tuple[str, ...]] = field(default_factory=dict)
    searched: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "holding": dict(self.holding),
            "stock": dict(self.stock),
            "stage": self.stage,
            "fixture": self.fixture,
            "asleep_until": self.asleep_until,
            "doing": self.doing,
            "committed_until": self.committed_until,
            "practiced": dict(self.practiced),
            "light": None if self.light is None else self.light.to_json(),
            "leads": {k: list(v) for k, v in self.leads.items()},
            "searched": list(self.searched),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Mind:
        return cls(
            dict(data["holding"]),
            dict(data["stock"]),
            data["stage"],
            data["fixture"],
            data["asleep_until"],
            data["doing"],
            data["committed_until"],
            dict(data["practiced"]),
            None if data["light"] is None else life.NeedTracker.from_json(data["light"]),
            {k: tuple(v) for k, v in data["leads"].items()},
            tuple(data["searched"]),
        )


def initial_mind(stock: dict[str, int], room: RoomKnowledge) -> Mind:
    repairs = room.light.repairs
    return Mind(stock=dict(stock), light=life.NeedTracker("light", repairs) if repairs else None)


def next_stage(stage: str, room: RoomKnowledge) -> str:
    """The stage after `stage`; a finished work is followed by a fresh project."""
    stages = [s.id for s in room.project.stages]
    if stage not in stages or stage == stages[-1]:
        return stages[0]
    return stages[stages.index(stage) + 1]


def stage_need(stage: str, room: RoomKnowledge) -> str | None:
    """The material a stage uses up, if any."""
    return next((s.uses for s in room.project.stages if s.id == stage), None)


def clock(minute: int) -> int:
    return minute % MINUTES_PER_DAY


def is_night(minute: int, room: RoomKnowledge) -> bool:
    c = clock(minute)
    return c >= room.night[0] or c < room.night[1]


def window_light(minute: int, room: RoomKnowledge) -> bool:
    """Daylight as the window shows it (the world decides the real light)."""
    return room.window[0] <= clock(minute) < room.window[1]


def looks_light(mind: Mind, minute: int, room: RoomKnowledge) -> bool:
    """Light as the agent judges it: the window by day, its light if it trusts it."""
    return window_light(minute, room) or mind.fixture == OK


def where(mind: Mind, resource: str, places: tuple[str, ...]) -> str | None:
    return next((p for p in places if mind.stock.get(f"{p}|{resource}", 0) > 0), None)


def material_places(mind: Mind, resource: str, room: RoomKnowledge) -> tuple[str, ...]:
    """Where to take a material from: the usual places, then any the agent found it in."""
    usual = room.materials_at
    found = sorted(
        k.split("|")[0] for k, n in mind.stock.items() if k.endswith(f"|{resource}") and n > 0
    )
    return (*usual, *(p for p in found if p not in usual))


def unsourced(mind: Mind, room: RoomKnowledge) -> str | None:
    """The material the project's next stage needs when the agent holds none, knows of none,
    and has not yet asked its memory where some might be; else None."""
    need = stage_need(next_stage(mind.stage, room), room)
    if (
        need is None
        or mind.holding.get(need, 0) > 0
        or need in mind.leads
        or where(mind, need, material_places(mind, need, room)) is not None
    ):
        return None
    return need


def with_leads(mind: Mind, resource: str, places: tuple[str, ...]) -> Mind:
    """What memory suggested for a missing material (possibly nothing): asked once."""
    return replace(mind, leads={**mind.leads, resource: places})


def candidates(
    mind: Mind,
    state: life.LifeState,
    persona: Persona,
    room: RoomKnowledge,
    now: int,
    slip: float = 1.0,
) -> tuple[list[Candidate], Mind]:
    """Everything worth doing now, scored; and the mind after weighing the unmet needs.

    `slip` is the seed's draw for today's practices (below SLIP_CHANCE a practice slips)."""
    traits = persona.traits
    out: list[Candidate] = []
    c = clock(now)
    if is_night(now, room):
        wake = now + ((room.morning - c) % MINUTES_PER_DAY)
        out.append(
            Candidate(
                "sleep", room.bed, 1.5 + state.energy_deficit, minutes=wake - now, reason="night"
            )
        )
    elif life.wants_rest(state) or life.stress(state) > 0.8:
        nap = max(30, int((state.energy_deficit - 0.3) / 0.004))
        out.append(
            Candidate("sleep", room.bed, 1.0 + state.energy_deficit, minutes=nap, reason="tired")
        )
    meals = room.meals
    mealtime = any(abs(c - t) <= 60 for t in meals.times)
    if life.wants_food(state) or (mealtime and state.hunger_deficit > 0.35):
        place = where(mind, meals.food, meals.at)
        if place is not None:
            out.append(Candidate("eat", place, 1.2 + state.hunger_deficit, reason="hungry"))
    if meals.leaves is not None and mind.holding.get(meals.leaves, 0) > 0:
        out.append(
            Candidate(
                "tidy",
                room.trash,
                0.4 + 0.4 * traits.orderliness,
                reason=f"an empty {meals.leaves}",
            )
        )
    project, mind = _project(mind, state, persona, room, now)
    out.extend(project)
    out.extend(look(mind, persona))
    out.extend(_practices(mind, persona, room, now, slip))
    out.append(
        Candidate(
            "look_around",
            room.floor,
            0.25 + 0.1 * traits.curiosity,
            minutes=15,
            reason="nothing pressing",
        )
    )
    return out, mind


SLIP_CHANCE = 0.1


def _practices(
    mind: Mind, persona: Persona, room: RoomKnowledge, now: int, slip: float
) -> list[Candidate]:
    """Cue-triggered routines: due in their window after the cue, postponed by anything more
    pressing, sometimes slipped; a slipped or missed one is repaired the next day, and late
    in the window only its lesser variant fits."""
    out = []
    c, today = clock(now), day_of(now)
    for p in persona.practices:
        if (
            p.cue != "morning"
            or mind.practiced.get(p.id) == today
            or not room.morning <= c < room.morning + p.window_minutes
        ):
            continue
        missed = mind.practiced.get(p.id, today - 1) < today - 1
        if slip < SLIP_CHANCE and not (missed and p.repair_next_day):
            continue  # a slip: forgotten today
        late = c >= room.morning + 2 * p.window_minutes // 3 and p.variants
        score = 0.9 + 0.2 * persona.traits.orderliness + (0.3 if missed else 0.0)
        reason = (
            f"practice {p.id}"
            + (f" ({p.variants[0]})" if late else "")
            + (" repaired" if missed else "")
        )
        out.append(
            Candidate(
                p.action,
                room.practice_places.get(p.action, room.floor),
                score,
                minutes=3 if late else 10,
                reason=reason,
            )
        )
    return out


def _project(
    mind: Mind, state: life.LifeState, persona: Persona, room: RoomKnowledge, now: int
) -> tuple[list[Candidate], Mind]:
    """The project: the next stage if there is light and material, else what unblocks it."""
    project = room.project
    stage = next_stage(mind.stage, room)
    joy = life.emotion_level(state, "joy")
    appetite = 0.7 + 0.3 * persona.traits.curiosity + 0.5 * joy - 0.3 * life.stress(state)
    need = stage_need(stage, room)
    if need is not None and mind.holding.get(need, 0) == 0:
        place = where(mind, need, material_places(mind, need, room))
        if place is None:
            return _search(mind, need, appetite, room), mind
        return [
            Candidate(
                "pick_up", place, appetite - 0.05, item=need, reason=f"{need} for the {stage}"
            )
        ], mind
    if looks_light(mind, now, room):
        spot = life.choose_by_skill(state, [(p, project.skill, p) for p in project.at])
        minutes = next(s.minutes for s in project.stages if s.id == stage)
        return [
            Candidate(
                project.action, spot, appetite, item=stage, minutes=minutes, reason=f"the {stage}"
            )
        ], mind
    return _light(mind, appetite, room, now)


def _search(mind: Mind, need: str, appetite: float, room: RoomKnowledge) -> list[Candidate]:
    """Out of a material: look where memory points, then where it usually is; each place once
    until new evidence (a delivery) arrives. With nowhere left, the project waits; and while
    something has just arrived unseen, seeing what it is (`look`) comes first."""
    if any(key.endswith("|?") for key in mind.stock):
        return []
    for place in (*mind.leads.get(need, ()), *room.materials_at):
        if f"{place}|{need}" not in mind.searched:
            return [
                Candidate(
                    "search",
                    place,
                    appetite - 0.05,
                    item=need,
                    minutes=3,
                    reason=f"look for {need}",
                )
            ]
    return []


def _light(
    mind: Mind, appetite: float, room: RoomKnowledge, now: int
) -> tuple[list[Candidate], Mind]:
    """In the dark with an untrusted light: find out why, fix what was found, substitute,
    ask for help once, or let the project wait for daylight (a downgrade)."""
    light = room.light
    if mind.fixture == FLICKERING:
        return [
            Candidate(
                "inspect", light.at, appetite, minutes=5, reason=f"why the {light.fixture} flickers"
            )
        ], mind
    if mind.light is None:  # no repair known: the project waits for daylight
        return [], mind
    tracker, decision = life.decide(mind.light, now)
    mind = replace(mind, light=tracker)
    fix = next((f.fix for f in light.faults if f.fault == mind.fixture), None)
    if decision.kind in ("try", "substitute") and decision.method is not None:
        method = (
            fix if fix is not None and not life.unreachable(tracker, fix, now) else decision.method
        )
        return [
            Candidate(method, light.at, appetite, minutes=10, reason=f"fix the {light.fixture}")
        ], mind
    if decision.kind == "ask_for_help":
        return [
            Candidate("ask_for_help", light.at, appetite - 0.1, reason=f"the {light.fixture}")
        ], mind
    return [], mind  # downgraded or waiting: the project waits for daylight


def look(mind: Mind, persona: Persona) -> list[Candidate]:
    """Places with unknown contents are worth inspecting."""
    return [
        Candidate(
            "inspect",
            key.split("|")[0],
            0.6 + 0.3 * persona.traits.curiosity,
            minutes=3,
            reason="see what arrived",
        )
        for key in sorted(mind.stock)
        if key.endswith("|?")
    ]
