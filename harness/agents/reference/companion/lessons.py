"""Lessons from consequences (the crystal layer): "in this situation → I did this → it went so
→ next time that", held to three gates before it is kept.

The consequences it learns from are its own unprompted messages (cited by their ticks) and
whether the person wrote back within a few hours. A lesson needs at least
`lessons.min_evidence` pieces of evidence (messages in that part of the day that went
unanswered), at least `lessons.min_counter` counter-examples (some that were answered), and a
"next time" that not anyone could say (a better part of the day by its own record, not "do
better"). The gates answer no_evidence, no_counter, platitude; only a lesson that passes is
kept. Pure functions over plain data.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from harness.engine.diagnostics import diagnostic_row

from .agenda import Sent

ANSWER_WITHIN = 3 * 60  # a reply within this long answers an unprompted message
PLATITUDE = "write more thoughtfully"  # what anyone could say: the gate's example


@diagnostic_row
@dataclass(frozen=True)
class LessonNote:
    """A lesson drawn from outcomes, a row of the `lessons` trace table: the ticks it cites as
    evidence and counter-evidence, and the gate's answer."""

    table: ClassVar[str] = "lessons"
    minute: int
    event_id: int
    agent: str
    lesson: str
    kind: str  # lesson / habit
    text: str  # when ..., I ..., it went ...; next time ...
    evidence: tuple[int, ...]
    counter: tuple[int, ...]
    gate: str  # kept / no_evidence / no_counter / platitude


def part_of_day(minute: int) -> str:
    clock = minute % (24 * 60)
    return "morning" if clock < 12 * 60 else "afternoon" if clock < 18 * 60 else "evening"


def settle(ledger: list[Sent], now: int) -> list[Sent]:
    """Messages unanswered for longer than ANSWER_WITHIN are settled as unanswered."""
    return [
        replace(s, answered=False) if s.answered is None and now - s.minute > ANSWER_WITHIN else s
        for s in ledger
    ]


def answered(ledger: list[Sent], now: int) -> list[Sent]:
    """A line came in: the latest open message within reach counts as answered."""
    out = list(ledger)
    for i in reversed(range(len(out))):
        if out[i].answered is None and now - out[i].minute <= ANSWER_WITHIN:
            out[i] = replace(out[i], answered=True)
            break
    return out


def _by_part(ledger: list[Sent]) -> dict[str, dict[bool, list[int]]]:
    """The ticks of the messages whose fate is known, by part of the day and fate."""
    parts: dict[str, dict[bool, list[int]]] = {}
    for s in ledger:
        if s.answered is not None:
            parts.setdefault(part_of_day(s.minute), {True: [], False: []})[s.answered].append(
                s.tick
            )
    return parts


def draw(ledger: list[Sent], min_evidence: int, min_counter: int) -> list[dict[str, Any]]:
    """Candidate lessons, one per part of the day with an unanswered message, with their gate."""
    parts = _by_part(ledger)
    rate = {p: len(v[True]) / (len(v[True]) + len(v[False])) for p, v in parts.items()}
    out = []
    for part in sorted(parts):
        bad, good = parts[part][False], parts[part][True]
        if not bad:
            continue
        better = [p for p in sorted(rate) if rate[p] > rate[part]]
        instead = f"write in the {better[0]}" if better else PLATITUDE
        gate = (
            "no_evidence"
            if len(bad) < min_evidence
            else "no_counter"
            if len(good) < min_counter
            else "platitude"
            if instead == PLATITUDE
            else "kept"
        )
        out.append(
            {
                "lesson": f"unanswered_{part}",
                "kind": "lesson",
                "text": f"when I write in the {part}, they often do not answer; next time "
                f"{instead}",
                "evidence": tuple(bad),
                "counter": tuple(good),
                "gate": gate,
            }
        )
    return out


BECAUSE_PLATITUDE = "writing to them is good, because people like to hear from someone"


def habits(
    ledger: list[Sent], heard: list[int], min_evidence: int, min_counter: int
) -> list[dict[str, Any]]:
    """Candidate habits of thought — "when I write in the morning they answer, because they
    are around then; it does not hold in the evening" — one per part of the day in which a
    message of its own was answered. A habit asks more than a lesson: one more piece of
    evidence than `lessons.min_evidence` (three at two), `lessons.min_counter` times it did
    not hold there, a "because" from what it saw (the person writes in that part of the day
    more than in the part where it does not hold: `heard` are the minutes of their lines) and
    a limit (a part of the day where it holds less). Without a because or a limit, what is
    left is what anyone could say: the platitude gate."""
    parts = _by_part(ledger)
    rate = {p: len(v[True]) / (len(v[True]) + len(v[False])) for p, v in parts.items()}
    around = {
        p: sum(1 for m in heard if part_of_day(m) == p) for p in ("morning", "afternoon", "evening")
    }
    out = []
    for part in sorted(parts):
        good, bad = parts[part][True], parts[part][False]
        if not good:
            continue
        worse = [p for p in sorted(rate) if rate[p] < rate[part] and around[p] < around[part]]
        text = (
            f"when I write in the {part}, they answer, because they are around then: they "
            f"write to me in the {part} more than in the {worse[0]}; it does not hold in the "
            f"{worse[0]}"
            if worse
            else BECAUSE_PLATITUDE
        )
        gate = (
            "no_evidence"
            if len(good) < min_evidence + 1
            else "no_counter"
            if len(bad) < min_counter
            else "platitude"
            if not worse
            else "kept"
        )
        out.append(
            {
                "lesson": f"answered_{part}",
                "kind": "habit",
                "text": text,
                "evidence": tuple(good),
                "counter": tuple(bad),
                "gate": gate,
                "limit": worse[0] if worse else None,
            }
        )
    return out


def quiet_part(
    gates: dict[str, str],
    ledger: list[Sent],
    heard: list[int],
    now: int,
    min_evidence: int,
    min_counter: int,
) -> bool:
    """Whether `now` falls in the limit of a habit it keeps ("it does not hold in the
    evening"): kept when it last looked back (`gates`) and still kept on its record now. Then
    a check-in waits for a part of the day where writing is answered."""
    part = part_of_day(now)
    return any(
        h["gate"] == "kept"
        and h["limit"] == part
        and gates.get(h["lesson"], "").startswith("kept/")
        for h in habits(ledger, heard, min_evidence, min_counter)
    )


def news(
    drawn: list[dict[str, Any]], gates: dict[str, str]
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The drawn lessons and habits worth a note: each once per change of its gate or of its
    evidence (a pure function: the new record of what was noted is returned)."""
    seen, out = dict(gates), []
    for item in drawn:
        key = f"{item['gate']}/{len(item['evidence'])}/{len(item['counter'])}"
        if seen.get(item["lesson"]) != key:
            seen[item["lesson"]] = key
            out.append(item)
    return out, seen
