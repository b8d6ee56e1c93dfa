"""Plans: the daily schedule from a persona, plan entries, what blocks or hurries a plan, and
how a request is served.

Pure functions: the agent calls them, the tick loop calls the agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.engine.contract import Intent, IntentKind, Meaning, PlanStage, Request, Sense
from scenarios import MINUTES_PER_DAY, AgentSpec, Errand, day_of
from scenarios.persona import Persona

JITTER_STEPS = 7  # routine slots start up to 6 ticks late, by the seed
ACTIVITY_MINUTES = 15
PENDING = (PlanStage.FETCH, PlanStage.CARRY_OUT)  # a request's plan still to be carried out
KIND_ORDER = {"plan": 0, "errand": 1, "move": 2, "activity": 3}


@dataclass(frozen=True)
class Slot:
    """One scheduled decision of a persona's day."""

    minute: int
    kind: str  # plan / errand / move / activity
    place: str | None = None
    errand: str | None = None
    day: int = 0


def daily_schedule(
    spec: AgentSpec, draws: Any, start: int, end: int, tick_minutes: int
) -> list[Slot]:
    """The persona's routine over the episode; the seed varies when and where, not what."""
    out: list[Slot] = [Slot(start, "plan", day=day_of(start))]  # the first day's plans
    for day in range(day_of(start), day_of(end) + 1):
        base = (day - 1) * MINUTES_PER_DAY
        out.append(Slot(base + spec.plan_at, "plan", day=day + 1))
        for errand in spec.errands:
            if day in errand.days:
                out.append(Slot(base + errand.at, "errand", errand=errand.id, day=day))
        for i, slot in enumerate(spec.routine):
            late = int(draws.uniform("routine", spec.id, day, i) * JITTER_STEPS)
            place = draws.choice(slot.go, "routine-place", spec.id, day, i)
            at = base + slot.at + late * tick_minutes
            out.append(Slot(at, "move", place=place, day=day))
            out.extend(
                Slot(at + ACTIVITY_MINUTES * k, "activity", place=place, day=day)
                for k in range(1, slot.activities + 1)
            )
    out = [s for s in out if start <= s.minute <= end]
    out.sort(key=lambda s: (s.minute, KIND_ORDER[s.kind], s.errand or "", s.place or ""))
    return out


@dataclass(frozen=True)
class Plan:
    """How the agent means to serve a goal (an errand on a day, or a request)."""

    goal: str  # "errand@day" or "request:<id>"
    day: int
    action: str
    target: str
    plan_id: int
    reason: str  # routine / retrieved / replanned / fallback / request / declined
    via: tuple[str, ...] = ()
    item: str | None = None
    source: str | None = None  # where to fetch `item` first
    start: int | None = None  # minute to set off (requests)
    stage: PlanStage = PlanStage.CARRY_OUT  # a request's plan starts by fetching its item

    def __post_init__(self) -> None:
        object.__setattr__(self, "stage", PlanStage(self.stage))


def blocking(beliefs: list[Any], places: tuple[str, ...], day: int, trigger: float) -> Any:
    """The first current belief, confident enough, that one of `places` is unusable on `day`
    (or that what happens there moved elsewhere)."""
    for b in beliefs:
        if (
            b.status == "current"
            and b.subject in places
            and ((b.sense == Sense.UNUSABLE and b.object == str(day)) or b.sense == Sense.MOVED_TO)
            and b.value == "true"
            and b.confidence >= trigger
        ):
            return b
    return None


def gathering_minute(when: str) -> int | None:
    """The minute of a gathering said to be on "<day> <hh:mm>"; None if it cannot be read."""
    day, _, clock = when.partition(" ")
    hours, _, minutes = clock.partition(":")
    if not (day.isdigit() and hours.isdigit() and minutes.isdigit()):
        return None
    return (int(day) - 1) * MINUTES_PER_DAY + int(hours) * 60 + int(minutes)


CLASH_MINUTES = 60  # a gathering keeps the agent from errands due in its first hour


def commits(meaning: Meaning | None) -> bool:
    """Whether news would make a plan that outweighs a standing errand: a gathering with a
    priority (a callback promised, not a party one may skip) is a commitment, not gossip."""
    return meaning is not None and meaning.sense == Sense.GATHERING and meaning.priority > 0


def displaced_errands(spec: AgentSpec, day: int, at: int, priority: int) -> list[Errand]:
    """The errands a plan from news (a gathering at minute `at` of `day`) displaces: those
    due that day at its time or within the hour after (while the agent is there) whose
    priority is lower than the plan's. A tie keeps the standing errand."""
    base = (day - 1) * MINUTES_PER_DAY
    return [
        e
        for e in spec.errands
        if day in e.days and at <= base + e.at < at + CLASH_MINUTES and e.priority < priority
    ]


def known_places(recalls: list[Any], action: str) -> list[str]:
    """Where the recalled experiences say `action` can be done, in recall order (best first):
    what the agent can think of, not what the world offers."""
    out: list[str] = []
    for r in recalls:
        e = r.experience
        if e.subject == action and e.proposition is None and e.value and e.value not in out:
            out.append(e.value)
    return out


def hurrying(beliefs: list[Any], place: str, day: int, trigger: float) -> Any:
    """The first current belief, confident enough, that `place` closes early on `day`."""
    for b in beliefs:
        if (
            b.status == "current"
            and b.subject == place
            and b.sense == Sense.CLOSES_EARLY
            and b.object == str(day)
            and b.value == "true"
            and b.confidence >= trigger
        ):
            return b
    return None


# --- requests: fetch, then deliver; or decline by a protected stance -------------------------------
SET_OFF_BEFORE = 120  # minutes before a request's deadline the agent sets off


def request_plan(
    request: Request, persona: Persona, beliefs: list[Any], minute: int, trigger: float
) -> Plan:
    """How to serve a request (its plan_id is the agent's to give). A protected stance vetoes
    before any weighing (a rule conflict); otherwise set off two hours before the deadline,
    or at once when the source is believed to close early that day."""
    goal = f"request:{request.request_id}"
    vetoes = persona.vetoes(request.action, request.item)
    if vetoes:
        return Plan(
            goal,
            day_of(minute),
            "decline",
            vetoes[0].id,
            0,
            "rule conflict",
            start=minute,
            stage=PlanStage.FETCH,
        )
    day = day_of(request.deadline)
    leave = max(minute, request.deadline - SET_OFF_BEFORE)
    if hurrying(beliefs, request.source, day, trigger):
        leave = minute  # the source closes early: go while it is open
    return Plan(
        goal,
        day,
        request.action,
        request.place,
        0,
        "request",
        item=request.item,
        source=request.source,
        start=leave,
        stage=PlanStage.FETCH,
    )


def request_step(
    plans: dict[str, Plan], requests: dict[str, Request], now: int
) -> tuple[Plan, Intent] | None:
    """The next due step of a pending request, if any: its plan and what to do."""
    for goal, plan in sorted(plans.items()):
        if (
            not goal.startswith("request:")
            or plan.stage not in PENDING
            or plan.start is None
            or plan.start > now
        ):
            continue
        request = requests[goal.split(":", 1)[1]]
        if plan.action == "decline":
            return plan, Intent(
                IntentKind.DECLINE, plan.target, "decline", plan.plan_id, goal, request.request_id
            )
        if plan.stage is PlanStage.FETCH:
            return plan, Intent(
                IntentKind.ACT,
                request.source,
                "pick_up",
                plan.plan_id,
                goal,
                request.request_id,
                request.item,
            )
        return plan, Intent(
            IntentKind.ACT,
            request.place,
            request.action,
            plan.plan_id,
            goal,
            request.request_id,
            request.item,
        )
    return None
