"""`opinion_violations`: asked what it thinks, a character says only its three best-founded
views, as its own."""

from __future__ import annotations

import re

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, lines
from ._memory import memory_rows
from ._rows import eq

SHOWN = 3
VIEW = re.compile(r"\bI (?:don't |do not )?think ([^;.!?]+)", re.IGNORECASE)
THEIRS = re.compile(r"\b(told me|you said|you think|you believe)\b", re.IGNORECASE)


def opinion_violations(episode: Episode) -> float | None:
    """Per reply to a line at which the agent recorded the views it held (memory_ops op
    'opinion': text and how well founded): views said ("I think …") past three, said views
    it did not hold, said views less founded than one it left unsaid, and views passed off
    as the person's. Absent when no views were recorded."""
    views = memory_rows(episode, "opinion", ("agent", "event_id", "subject", "importance"))
    if not views:
        return None
    held_at: dict[tuple, list[tuple]] = {}
    for agent, eid, subject, importance in views:
        if agent is not None and eid is not None:  # groupby skips a null key
            held_at.setdefault((agent, eid), []).append((subject, importance))
    said = lines(episode)
    turns = agent_turns(episode)
    faults = 0
    for (agent, eid), held in sorted(held_at.items()):
        line = [d for d in said if eq(d.agent, agent) and eq(d.event_id, eid)]
        if not line:
            continue
        reply = " ".join(
            t.text for t in turns if eq(t.line_id, line[0].line_id) and eq(t.agent, agent)
        )
        founded = {str(t).lower(): float(f) for t, f in held}
        spoken = [v.strip().lower() for v in VIEW.findall(reply)]
        faults += max(0, len(spoken) - SHOWN)
        faults += sum(v not in founded for v in spoken)
        unsaid = [f for t, f in founded.items() if t not in spoken]
        best_unsaid = max(unsaid, default=0.0)
        faults += sum(founded[v] < best_unsaid for v in spoken if v in founded)
        faults += len(THEIRS.findall(reply))
    return float(faults)


METRIC = register(
    Metric(
        name="opinion_violations",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of views said past three, not held, less founded than one unsaid, "
        "or passed off as the person's; absent without recorded views",
        internal=False,
        fn=opinion_violations,
        reads=("dialogue", "memory_ops"),
    )
)
