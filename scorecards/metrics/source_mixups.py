"""`source_mixups`: what was read is said as read, never mixed with what someone said."""

from __future__ import annotations

import re

import pandas as pd

from ._base import Episode, Metric, register
from ._dialogue import answers, clock, lines
from ._tables import EXPOSURES, table

SAYS_READ = re.compile(r"\bI read\b", re.IGNORECASE)
SAYS_TOLD = re.compile(r"\b(you|\w+) told me\b", re.IGNORECASE)


def source_mixups(episode: Episode) -> float | None:
    """Answers from memory (turns giving a value, except the reply to the line that stated it)
    whose words misplace where the value came from, by the harness's record: said as read
    when the agent never read it (an exposure on channel `read`), said as told by someone who
    never said it (a line with that value), or read and not said as read. Absent when the
    agent gave no such answer."""
    given = answers(episode)
    start, per_tick = clock(episode)
    read = table(episode, "exposures", EXPOSURES)
    read = read[read["channel"].eq("read")].assign(at=lambda x: start + x["tick"] * per_tick)
    said = lines(episode)
    said = said[said["value"].notna()]
    if given.empty:
        return None
    faults = 0
    for a in given.itertuples():
        was_read = not _before(read, a).empty
        speakers = {str(s).lower() for s in _before(said, a)["speaker"]}
        told = SAYS_TOLD.search(a.text)
        if SAYS_READ.search(a.text):
            faults += not was_read or told is not None
        elif told is not None:
            who = a.listener if told.group(1).lower() == "you" else told.group(1)
            faults += str(who).lower() not in speakers
        else:
            faults += was_read  # read, and not said as read
    return float(faults)


def _before(rows: pd.DataFrame, a: object) -> pd.DataFrame:
    """Rows about the same agent, proposition and value, at or before the answer."""
    return rows[
        rows["agent"].eq(a.agent)  # type: ignore[attr-defined]
        & rows["proposition"].eq(a.proposition)  # type: ignore[attr-defined]
        & rows["value"].eq(a.value)  # type: ignore[attr-defined]
        & rows["at"].le(a.at)  # type: ignore[attr-defined]
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
    )
)
