"""Plans: the daily schedule from a persona, plan entries, and what blocks a plan.

Pure functions: the agent calls them, the tick loop calls the agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scenarios import MINUTES_PER_DAY, AgentSpec, day_of

JITTER_STEPS = 7  # routine slots start up to 6 ticks late, by the seed
ACTIVITY_MINUTES = 15
# predicates that make a place unusable on a day (a gathering moved away counts)
BLOCKERS = ("closed_on", "blocked_on", "moved_on")
HURRY = ("closes_early_on",)  # a place that will close early that day: go while it is open
KIND_ORDER = {"plan": 0, "errand": 1, "move": 2, "activity": 3}


@dataclass(frozen=True)
class Slot:
    """One scheduled decision of a persona's day."""

    minute: int
    kind: str  # plan / errand / move / activity
    place: str | None = None
    errand: str | None = None
    day: int = 0


def daily_schedule(spec: AgentSpec, draws: Any, start: int, end: int,
                   tick_minutes: int) -> list[Slot]:
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
            out.extend(Slot(at + ACTIVITY_MINUTES * k, "activity", place=place, day=day)
                       for k in range(1, slot.activities + 1))
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
    step: int = 0  # requests: 0 fetch, 1 carry out, 2 done


def blocking(beliefs: list[Any], places: tuple[str, ...], day: int, trigger: float) -> Any:
    """The first current belief, confident enough, that one of `places` is unusable on `day`."""
    for b in beliefs:
        if (b.status == "current" and b.subject in places and b.predicate in BLOCKERS
                and b.object == str(day) and b.value == "true" and b.confidence >= trigger):
            return b
    return None


def hurrying(beliefs: list[Any], place: str, day: int, trigger: float) -> Any:
    """The first current belief, confident enough, that `place` closes early on `day`."""
    for b in beliefs:
        if (b.status == "current" and b.subject == place and b.predicate in HURRY
                and b.object == str(day) and b.value == "true" and b.confidence >= trigger):
            return b
    return None
