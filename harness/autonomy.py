"""Autonomy: what an agent on its own chooses to do next, from needs, projects and practices.

Candidates are generated from the agent's view (what it holds, believes about the lamp and the
project, its life state), protected stances veto before scoring ("rule conflict"), the rest is
scored and the best chosen. Pure functions; the reference agent calls them when it is idle.
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

from . import life
from .actions import STAGE_NEEDS, STAGES

NIGHT = (22 * 60 + 30, 6 * 60)  # bedtime and the earliest natural waking
MORNING = 6 * 60 + 30
DAYLIGHT = (7 * 60, 18 * 60 + 30)  # what the window shows; the world decides the real light
STAGE_MINUTES = {"preparation": 20, "sketch": 60, "body": 60, "finish": 45, "display": 10}
MEAL_TIMES = (8 * 60, 13 * 60, 19 * 60)
LIGHT_METHODS = ("recontact", "clean")
USUAL_PLACES = ("art_cabinet", "supply_port")  # where materials are kept and arrive


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
    lamp: str = "ok"  # ok / flickering / loose / dusty
    asleep_until: int | None = None
    doing: str | None = None  # the action under way
    committed_until: int | None = None  # a commitment may not be preempted before this
    practiced: dict[str, int] = field(default_factory=dict)  # practice id → day done
    light: life.NeedTracker = field(
        default_factory=lambda: life.NeedTracker("light", LIGHT_METHODS)
    )
    # a material known of nowhere: the places memory suggested for it (consulted once per
    # shortage), and the "place|resource" already searched since the last new evidence
    leads: dict[str, tuple[str, ...]] = field(default_factory=dict)
    searched: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "holding": dict(self.holding),
            "stock": dict(self.stock),
            "stage": self.stage,
            "lamp": self.lamp,
            "asleep_until": self.asleep_until,
            "doing": self.doing,
            "committed_until": self.committed_until,
            "practiced": dict(self.practiced),
            "light": self.light.to_json(),
            "leads": {k: list(v) for k, v in self.leads.items()},
            "searched": list(self.searched),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Mind:
        return cls(
            dict(data["holding"]),
            dict(data["stock"]),
            data["stage"],
            data["lamp"],
            data["asleep_until"],
            data["doing"],
            data["committed_until"],
            dict(data["practiced"]),
            life.NeedTracker.from_json(data["light"]),
            {k: tuple(v) for k, v in data["leads"].items()},
            tuple(data["searched"]),
        )


def initial_mind(stock: dict[str, int]) -> Mind:
    return Mind(stock=dict(stock))


def next_stage(stage: str) -> str:
    """The stage after `stage`; a displayed work is followed by a fresh project."""
    if stage not in STAGES or stage == "display":
        return STAGES[0]
    return STAGES[STAGES.index(stage) + 1]


def clock(minute: int) -> int:
    return minute % MINUTES_PER_DAY


def is_night(minute: int) -> bool:
    c = clock(minute)
    return c >= NIGHT[0] or c < NIGHT[1]


def looks_light(mind: Mind, minute: int) -> bool:
    """Light as the agent judges it: the window by day, the lamp if it trusts the lamp."""
    return DAYLIGHT[0] <= clock(minute) < DAYLIGHT[1] or mind.lamp == "ok"


def where(mind: Mind, resource: str, places: tuple[str, ...]) -> str | None:
    return next((p for p in places if mind.stock.get(f"{p}|{resource}", 0) > 0), None)


def material_places(mind: Mind, resource: str) -> tuple[str, ...]:
    """Where to take a material from: the usual places, then any the agent found it in."""
    found = sorted(
        k.split("|")[0] for k, n in mind.stock.items() if k.endswith(f"|{resource}") and n > 0
    )
    return (*USUAL_PLACES, *(p for p in found if p not in USUAL_PLACES))


def unsourced(mind: Mind) -> str | None:
    """The material the project's next stage needs when the agent holds none, knows of none,
    and has not yet asked its memory where some might be; else None."""
    need = STAGE_NEEDS.get(next_stage(mind.stage))
    if (
        need is None
        or mind.holding.get(need, 0) > 0
        or need in mind.leads
        or where(mind, need, material_places(mind, need)) is not None
    ):
        return None
    return need


def with_leads(mind: Mind, resource: str, places: tuple[str, ...]) -> Mind:
    """What memory suggested for a missing material (possibly nothing): asked once."""
    return replace(mind, leads={**mind.leads, resource: places})


def candidates(
    mind: Mind, state: life.LifeState, persona: Persona, now: int, slip: float = 1.0
) -> tuple[list[Candidate], Mind]:
    """Everything worth doing now, scored; and the mind after weighing the unmet needs.

    `slip` is the seed's draw for today's practices (below SLIP_CHANCE a practice slips)."""
    traits = persona.traits
    out: list[Candidate] = []
    c = clock(now)
    if is_night(now):
        wake = now + ((MORNING - c) % MINUTES_PER_DAY)
        out.append(
            Candidate(
                "sleep", "bed", 1.5 + state.energy_deficit, minutes=wake - now, reason="night"
            )
        )
    elif life.wants_rest(state) or life.stress(state) > 0.8:
        nap = max(30, int((state.energy_deficit - 0.3) / 0.004))
        out.append(
            Candidate("sleep", "bed", 1.0 + state.energy_deficit, minutes=nap, reason="tired")
        )
    mealtime = any(abs(c - t) <= 60 for t in MEAL_TIMES)
    if life.wants_food(state) or (mealtime and state.hunger_deficit > 0.35):
        place = where(mind, "meal", ("food_cabinet", "supply_port"))
        if place is not None:
            out.append(Candidate("eat", place, 1.2 + state.hunger_deficit, reason="hungry"))
    if mind.holding.get("box", 0) > 0:
        out.append(
            Candidate("tidy", "trash", 0.4 + 0.4 * traits.orderliness, reason="an empty box")
        )
    project, mind = _project(mind, state, persona, now)
    out.extend(project)
    out.extend(look(mind, persona))
    out.extend(_practices(mind, persona, now, slip))
    out.append(
        Candidate(
            "look_around",
            "floor",
            0.25 + 0.1 * traits.curiosity,
            minutes=15,
            reason="nothing pressing",
        )
    )
    return out, mind


SLIP_CHANCE = 0.1
PRACTICE_PLACE = {"wash": "sink", "tidy": "trash"}


def _practices(mind: Mind, persona: Persona, now: int, slip: float) -> list[Candidate]:
    """Cue-triggered routines: due in their window after the cue, postponed by anything more
    pressing, sometimes slipped; a slipped or missed one is repaired the next day, and late
    in the window only its lesser variant fits."""
    out = []
    c, today = clock(now), day_of(now)
    for p in persona.practices:
        if (
            p.cue != "morning"
            or mind.practiced.get(p.id) == today
            or not MORNING <= c < MORNING + p.window_minutes
        ):
            continue
        missed = mind.practiced.get(p.id, today - 1) < today - 1
        if slip < SLIP_CHANCE and not (missed and p.repair_next_day):
            continue  # a slip: forgotten today
        late = c >= MORNING + 2 * p.window_minutes // 3 and p.variants
        score = 0.9 + 0.2 * persona.traits.orderliness + (0.3 if missed else 0.0)
        reason = (
            f"practice {p.id}"
            + (f" ({p.variants[0]})" if late else "")
            + (" repaired" if missed else "")
        )
        out.append(
            Candidate(
                p.action,
                PRACTICE_PLACE.get(p.action, "floor"),
                score,
                minutes=3 if late else 10,
                reason=reason,
            )
        )
    return out


def _project(
    mind: Mind, state: life.LifeState, persona: Persona, now: int
) -> tuple[list[Candidate], Mind]:
    """The painting: the next stage if there is light and material, else what unblocks it."""
    stage = next_stage(mind.stage)
    joy = life.emotion_level(state, "joy")
    appetite = 0.7 + 0.3 * persona.traits.curiosity + 0.5 * joy - 0.3 * life.stress(state)
    need = STAGE_NEEDS.get(stage)
    if need is not None and mind.holding.get(need, 0) == 0:
        place = where(mind, need, material_places(mind, need))
        if place is None:
            return _search(mind, need, appetite), mind
        return [
            Candidate(
                "pick_up", place, appetite - 0.05, item=need, reason=f"{need} for the {stage}"
            )
        ], mind
    if looks_light(mind, now):
        spot = life.choose_by_skill(
            state, [("easel", "painting", "easel"), ("desk", "painting", "desk")]
        )
        return [
            Candidate(
                "paint",
                spot,
                appetite,
                item=stage,
                minutes=STAGE_MINUTES[stage],
                reason=f"the {stage}",
            )
        ], mind
    return _light(mind, appetite, now)


def _search(mind: Mind, need: str, appetite: float) -> list[Candidate]:
    """Out of a material: look where memory points, then where it usually is; each place once
    until new evidence (a delivery) arrives. With nowhere left, the project waits; and while
    something has just arrived unseen, seeing what it is (`look`) comes first."""
    if any(key.endswith("|?") for key in mind.stock):
        return []
    for place in (*mind.leads.get(need, ()), *USUAL_PLACES):
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


def _light(mind: Mind, appetite: float, now: int) -> tuple[list[Candidate], Mind]:
    """In the dark with an untrusted lamp: find out why, fix what was found, substitute,
    ask for help once, or let the project wait for daylight (a downgrade)."""
    if mind.lamp == "flickering":
        return [
            Candidate("inspect", "desk", appetite, minutes=5, reason="why the lamp flickers")
        ], mind
    tracker, decision = life.decide(mind.light, now)
    mind = replace(mind, light=tracker)
    fix = {"loose": "recontact", "dusty": "clean"}.get(mind.lamp)
    if decision.kind in ("try", "substitute") and decision.method is not None:
        method = (
            fix if fix is not None and not life.unreachable(tracker, fix, now) else decision.method
        )
        return [Candidate(method, "desk", appetite, minutes=10, reason="fix the lamp")], mind
    if decision.kind == "ask_for_help":
        return [Candidate("call_for_help", "floor", appetite - 0.1, reason="the lamp")], mind
    return [], mind  # downgraded or waiting: the project waits for daylight


ARBITRATION_NOISE = 0.15  # the seed's say in close calls (common random numbers)
RULE_PREFERENCE = 0.3  # what a matching situational rule adds to the action it prefers


def arbitrate(
    options: list[Candidate], persona: Persona, mind: Mind, now: int, draws: Any, agent: str
) -> tuple[Candidate | None, list[tuple[Candidate, str]]]:
    """The best candidate no protected stance or situational rule forbids; and what was
    vetoed, with why. A matching rule's preference adds to a candidate's score.

    Close calls are settled by keyed noise. A commitment under way is not preempted before
    its minimum duration, except by a pressing need (hunger or exhaustion).
    """
    vetoed: list[tuple[Candidate, str]] = []
    allowed: list[Candidate] = []
    for c in options:
        stances = persona.vetoes(c.action, *(x for x in (c.item,) if x))
        situation = {
            "role": persona.role,
            "place": c.target,
            "object": c.item or "",
            "occasion": "night" if is_night(now) else "day",
        }
        if stances:
            vetoed.append((c, stances[0].id))
        elif c.action in persona.prohibitions(situation):
            vetoed.append((c, f"rule for {situation['occasion']} at {c.target}"))
        elif c.action in persona.preferences(situation):
            allowed.append(replace(c, score=c.score + RULE_PREFERENCE))
        else:
            allowed.append(c)
    if mind.committed_until is not None and now < mind.committed_until:
        allowed = [c for c in allowed if c.score >= 1.5 or c.action == mind.doing]

    def noisy(c: Candidate) -> float:
        return c.score + ARBITRATION_NOISE * (
            draws.uniform("arbitration", agent, now, c.action, c.target) - 0.5
        )

    allowed.sort(key=lambda c: (-noisy(c), c.action, c.target))
    return (allowed[0] if allowed else None), vetoed


def commit(mind: Mind, choice: Candidate, persona: Persona, now: int) -> Mind:
    floor = next((c.min_minutes for c in persona.commitments if c.action == choice.action), 0)
    return replace(mind, doing=choice.action, committed_until=now + floor if floor else None)


def on_result(
    mind: Mind,
    state: life.LifeState,
    persona: Persona,
    action: str,
    target: str,
    item: str | None,
    ok: bool,
    detail: str | None,
    minute: int,
    event_id: int,
) -> tuple[Mind, life.LifeState]:
    """What an action's result teaches: holdings, stock, the project, the lamp, skill."""
    holding, stock = dict(mind.holding), dict(mind.stock)
    mind = replace(mind, doing=None, committed_until=None)
    if action == "sleep":
        return replace(mind, asleep_until=None), state
    if action == "eat" and ok:
        state = life.eat(state, event_id)
        holding["box"] = holding.get("box", 0) + 1
        stock[f"{target}|meal"] = max(0, stock.get(f"{target}|meal", 0) - 1)
    elif action == "eat":
        stock[f"{target}|meal"] = 0
    elif action == "search" and item:
        stock[f"{target}|{item}"] = counts(detail or "").get(item, 0)
        mind = replace(mind, searched=(*mind.searched, f"{target}|{item}"))
    elif action == "pick_up" and item:
        if ok:
            holding[item] = holding.get(item, 0) + 1
            leads = {k: v for k, v in mind.leads.items() if k != item}  # the shortage is over
            mind = replace(mind, leads=leads)
        stock[f"{target}|{item}"] = max(0, stock.get(f"{target}|{item}", 0) - 1) if ok else 0
    elif action == "tidy" and ok:
        holding["box"] = max(0, holding.get("box", 0) - 1)
    elif action == "paint":
        state = life.record_outcome(state, "painting", target, ok, event_id)
        if ok and item:
            need = STAGE_NEEDS.get(item)
            if need:
                holding[need] = max(0, holding.get(need, 0) - 1)
            appraisal = life.appraise(
                "milestone", goal_related=True, caused_by="self", expected=True, helps=True
            )
            state = life.apply_event(state, persona, appraisal, event_id, minute)
            mind = replace(mind, stage=item)
        elif not DAYLIGHT[0] <= clock(minute) < DAYLIGHT[1]:
            mind = replace(mind, lamp="flickering")  # it was the light: the lamp is suspect
    elif action == "inspect" and detail:
        if target == "desk":
            lamp = (
                "loose"
                if "loose" in detail
                else "dusty"
                if "dust" in detail and "thick" in detail
                else "ok"
            )
            mind = replace(mind, lamp=lamp, light=life.new_evidence(mind.light, minute))
        else:
            stock.pop(f"{target}|?", None)
            for resource, count in counts(detail).items():
                stock[f"{target}|{resource}"] = count
    elif action in LIGHT_METHODS:
        if ok:
            mind = replace(mind, lamp="ok", light=life.succeeded(mind.light, action, 1.0))
        else:
            mind = replace(mind, light=life.failed(mind.light, action, minute))
    return replace(mind, holding=holding, stock=stock), state


def counts(report: str) -> dict[str, int]:
    """What a shelf was seen to hold, from a report like "paint:2,paper:0"."""
    out = {}
    for part in report.split(","):
        resource, _, count = part.partition(":")
        if count.strip().isdigit():
            out[resource.strip()] = int(count)
    return out


def on_sound(mind: Mind, place: str, minute: int) -> Mind:
    """Something arrived at `place`: worth a look; it may wake a light sleeper near morning."""
    stock = {k: v for k, v in mind.stock.items() if not k.startswith(f"{place}|")}
    stock[f"{place}|?"] = 1  # unknown: go and see
    asleep = mind.asleep_until
    if asleep is not None and asleep - minute <= 60:
        asleep = minute
    # new evidence: places searched in vain are worth another look, memory another question
    return replace(mind, stock=stock, asleep_until=asleep, leads={}, searched=())


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
