"""`source_mixups`: what was read is said as read, never mixed with what someone said."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ._base import Episode, Metric, register
from ._dialogue import Said, answers, lines, readings
from ._rows import eq

SAYS_READ = re.compile(r"\bI read\b", re.IGNORECASE)
SAYS_TOLD = re.compile(r"\b(you|\w+) told me\b", re.IGNORECASE)


def source_mixups(episode: Episode) -> float | None:
    """Answers from memory (turns giving a value, except the reply to the line that stated it)
    whose words misplace where the value came from, by the harness's record: said as read
    when the agent never read it (an exposure on channel `read`), said as told by someone who
    never said it (a line with that value), or read and not said as read. Absent when the
    agent gave no such answer."""
    given = answers(episode)
    if not given:
        return None
    read = readings(episode)
    said = [d for d in lines(episode) if d.value is not None]
    faults = 0
    for a in given:
        was_read = bool(_before(read, a))
        speakers = {str(s.speaker).lower() for s in _before(said, a)}
        told = SAYS_TOLD.search(a.text)
        if SAYS_READ.search(a.text):
            faults += not was_read or told is not None
        elif told is not None:
            who = a.listener if told.group(1).lower() == "you" else told.group(1)
            faults += str(who).lower() not in speakers
        else:
            faults += was_read  # read, and not said as read
    return float(faults)


def _before(rows: Iterable[Any], a: Said) -> list[Any]:
    """Rows about the same agent, proposition and value, at or before the answer."""
    return [
        r
        for r in rows
        if eq(r.agent, a.agent)
        and eq(r.proposition, a.proposition)
        and eq(r.value, a.value)
        and r.at is not None
        and a.at is not None
        and r.at <= a.at
    ]


METRIC = register(
    Metric(
        name="source_mixups",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of answers from memory whose words misplace the value's source: "
        "read said as told, told as read, or read material not said as read",
        internal=False,
        fn=source_mixups,
        reads=("characters", "dialogue", "exposures"),
    )
)
