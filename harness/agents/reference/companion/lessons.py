"""Lessons from consequences (the crystal layer): "in this situation → I did this → it went so
→ next time that", held to three gates before it is kept.

The consequences it learns from are its own unprompted messages (cited by their ticks) and whether the person wrote
back within a few hours. A lesson needs at least `lessons.min_evidence` pieces of evidence
(messages in that part of the day that went unanswered), at least `lessons.min_counter`
counter-examples (some that were answered), and a "next time" that not anyone could say
(a better part of the day by its own record, not "do better"). The gates answer no_evidence,
no_counter, platitude; only a lesson that passes is kept. Pure functions over plain data.
"""

from __future__ import annotations

from typing import Any

ANSWER_WITHIN = 3 * 60  # a reply within this long answers an unprompted message
PLATITUDE = "write more thoughtfully"  # what anyone could say: the gate's example


def part_of_day(minute: int) -> str:
    clock = minute % (24 * 60)
    return "morning" if clock < 12 * 60 else "afternoon" if clock < 18 * 60 else "evening"


def settle(ledger: list[list[Any]], now: int) -> list[list[Any]]:
    """Messages unanswered for longer than ANSWER_WITHIN are settled as unanswered."""
    return [
        [tick, minute, False] if answered is None and now - minute > ANSWER_WITHIN else
        [tick, minute, answered]
        for tick, minute, answered in ledger
    ]  # fmt: skip


def answered(ledger: list[list[Any]], now: int) -> list[list[Any]]:
    """A line came in: the latest open message within reach counts as answered."""
    out = [list(row) for row in ledger]
    for row in reversed(out):
        if row[2] is None and now - row[1] <= ANSWER_WITHIN:
            row[2] = True
            break
    return out


def draw(ledger: list[list[Any]], min_evidence: int, min_counter: int) -> list[dict[str, Any]]:
    """Candidate lessons, one per part of the day with an unanswered message, with their gate."""
    parts: dict[str, dict[bool, list[int]]] = {}
    for tick, minute, ok in ledger:
        if ok is not None:
            parts.setdefault(part_of_day(minute), {True: [], False: []})[ok].append(tick)
    rate = {p: len(v[True]) / (len(v[True]) + len(v[False])) for p, v in parts.items()}
    out = []
    for part in sorted(parts):
        bad, good = parts[part][False], parts[part][True]
        if not bad:
            continue
        better = [p for p in sorted(rate) if rate[p] > rate[part]]
        instead = f"write in the {better[0]}" if better else PLATITUDE
        gate = (
            "no_evidence" if len(bad) < min_evidence else
            "no_counter" if len(good) < min_counter else
            "platitude" if instead == PLATITUDE else
            "kept"
        )  # fmt: skip
        out.append(
            {
                "lesson": f"unanswered_{part}",
                "text": f"when I write in the {part}, they often do not answer; next time "
                f"{instead}",
                "evidence": tuple(bad),
                "counter": tuple(good),
                "gate": gate,
            }
        )
    return out
