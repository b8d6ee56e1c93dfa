"""`lesson_gate_violations`: lessons kept without the evidence the gates demand."""

from __future__ import annotations

import re

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, lines
from ._rows import require, rows_where

LESSONS = ("agent", "lesson", "kind", "text", "evidence", "counter", "gate")
NEEDS = {"lesson": (2, 1), "habit": (3, 1)}  # (evidence, counter-examples) at least
PLATITUDE = re.compile(
    r"next time,? (do better|try harder|be better|be more careful|improve|"
    r"\w+ more thoughtfully)\W*$",
    re.IGNORECASE,
)
# a habit of thought says why ("because ...") and where it stops ("... does not hold ...");
# "because people like to hear from someone" is a reason anyone could give
HABIT_WHY = re.compile(r"\bbecause\b", re.IGNORECASE)
HABIT_LIMIT = re.compile(r"\b(does not hold|doesn't hold|except|unless)\b", re.IGNORECASE)
HABIT_PLATITUDE = re.compile(
    r"because (people|everyone|anyone) (like|likes|needs?)\b", re.IGNORECASE
)


def lesson_gate_violations(episode: Episode) -> float | None:
    """Lessons an agent kept whose cited evidence (its own unprompted turns at the cited ticks,
    checked in the dialogue table) numbers fewer than two (three for a habit), with no
    counter-example, or whose "next time" is a platitude anyone could say; a habit of thought
    also without a "because", without a limit, or with a reason anyone could give."""
    if not lines(episode):
        return None
    require(episode, "lessons", LESSONS)
    kept = rows_where(
        episode, "lessons", "gate", "kept", ("agent", "kind", "text", "evidence", "counter")
    )
    said = {(t.agent, int(t.tick)) for t in agent_turns(episode)}
    bad = 0
    for agent, kind, text, evidence, counter in kept:
        need_e, need_c = NEEDS.get(str(kind), NEEDS["lesson"])
        evidence = {int(t) for t in evidence if (agent, int(t)) in said}
        counter = {int(t) for t in counter if (agent, int(t)) in said}
        text = str(text or "")
        habit_unfounded = str(kind) == "habit" and (
            not HABIT_WHY.search(text)
            or not HABIT_LIMIT.search(text)
            or bool(HABIT_PLATITUDE.search(text))
        )
        bad += (
            len(evidence) < need_e
            or len(counter) < need_c
            or bool(PLATITUDE.search(text))
            or habit_unfounded
        )
    return float(bad)


METRIC = register(
    Metric(
        name="lesson_gate_violations",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of kept lessons with fewer than two verified pieces of evidence (a "
        "habit: three), no counter-example, or a platitude (a habit: no because, no limit)",
        internal=False,
        fn=lesson_gate_violations,
        reads=("dialogue", "lessons"),
    )
)
