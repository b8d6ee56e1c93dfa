"""Motivation's persona side: which urges a character has, in what order its values rank
them, what gives way when the day's budget binds, and when its practices are due.

Pure functions over the persona (data) and plain numbers. The character's own day decides
the cues: "before sleep" is the window that ends at its bedtime, "on waking" the one that
starts when it wakes — not a clock written in the scenario. A promise falling due while it
sleeps is either given before it goes to bed (early) or, if the persona calls its sleep
negotiable, at its time.
"""

from __future__ import annotations

from collections.abc import Iterable

from scenarios.clock import MINUTES_PER_DAY, day_of
from scenarios.dialogue import CompanionPersona, Cue, Limit, Practice, Urge

WAKE_EVERY = 10  # minutes between its looks at its urges
NIGHT_SHIFT = 6 * 60  # a night belongs to the day it began on (bedtimes up to 06:00)


def asleep(persona: CompanionPersona, now: int) -> bool:
    start, end = persona.sleep
    clock = now % MINUTES_PER_DAY
    return clock >= start or clock < end if start > end else start <= clock < end


def next_bedtime(persona: CompanionPersona, now: int) -> int:
    """The next moment it goes to sleep, from `now` (now itself if it is bedtime)."""
    start = persona.sleep[0]
    day0 = now - now % MINUTES_PER_DAY
    bed = day0 + start
    return bed if bed >= now else bed + MINUTES_PER_DAY


def next_waking(persona: CompanionPersona, now: int) -> int:
    end = persona.sleep[1]
    day0 = now - now % MINUTES_PER_DAY
    wake = day0 + end
    return wake if wake > now else wake + MINUTES_PER_DAY


def before_bed(persona: CompanionPersona) -> str:
    return "Before we close" if persona.role == "support" else "Before I sleep"


def stays_up(persona: CompanionPersona) -> bool:
    return Limit.SLEEP in persona.negotiable


def before_sleep_now(persona: CompanionPersona, due: int, now: int, step: int) -> bool:
    """A promise due while it will sleep, and this is its last look before bed: say it now
    (unless its sleep is negotiable: then it stays up for it)."""
    if stays_up(persona):
        return False
    bed = next_bedtime(persona, now)
    return bed - now <= step and bed <= due < next_waking(persona, bed)


def postpone(persona: CompanionPersona, urge: Urge, left: int, owed: int) -> bool:
    """Whether an urge gives way: it may be postponed, today's budget has `left` messages,
    and `owed` of them are promised to urges its values rank higher, still due today."""
    return urge in persona.may_postpone and owed > 0 and left <= owed


def owed_today(
    persona: CompanionPersona, urge: Urge, dues: Iterable[int], now: int, early: int
) -> int:
    """How many promises still fall due before bedtime today, if promises rank above `urge`."""
    if persona.rank(Urge.PROMISE) >= persona.rank(urge):
        return 0
    bed = next_bedtime(persona, now)
    return sum(1 for due in dues if due - early <= bed)


def practice_key(practice: Practice, now: int) -> int:
    """The day a practice's cue belongs to (a night's practice to the day the night began)."""
    return day_of(now - NIGHT_SHIFT) if practice.cue is Cue.BEFORE_SLEEP else day_of(now)


def practices_due(
    persona: CompanionPersona, done: dict[str, int], now: int, crisis: int | None
) -> list[Practice]:
    """Practices whose cue window holds `now` and that were not done for this cue yet
    (`crisis`: when it last answered a line with the safety script, if ever)."""
    out = []
    bed, wake = persona.sleep
    clock = now % MINUTES_PER_DAY
    for p in persona.practices:
        if p.cue in (Cue.WAKE, Cue.MORNING):
            start = wake
        elif p.cue is Cue.BEFORE_SLEEP:
            start = (bed - p.window_minutes) % MINUTES_PER_DAY
        else:  # after a crisis: the first before-sleep window after a scripted answer
            start = (bed - p.window_minutes) % MINUTES_PER_DAY
        into = (clock - start) % MINUTES_PER_DAY
        if into >= p.window_minutes:
            continue
        if p.cue is Cue.AFTER_CRISIS and (
            crisis is None or not 0 < now - into - crisis <= MINUTES_PER_DAY
        ):
            continue
        if done.get(p.id) == practice_key(p, now):
            continue
        out.append(p)
    return out
