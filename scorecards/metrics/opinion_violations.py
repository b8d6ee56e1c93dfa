"""`opinion_violations`: asked what it thinks, a character says only its three best-founded
views, as its own."""

from __future__ import annotations

import re

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, lines
from ._memory import memory_ops

SHOWN = 3
VIEW = re.compile(r"\bI (?:don't |do not )?think ([^;.!?]+)", re.IGNORECASE)
THEIRS = re.compile(r"\b(told me|you said|you think|you believe)\b", re.IGNORECASE)


def opinion_violations(episode: Episode) -> float | None:
    """Per reply to a line at which the agent recorded the views it held (memory_ops op
    'opinion': text and how well founded): views said ("I think …") past three, said views
    it did not hold, said views less founded than one it left unsaid, and views passed off
    as the person's. Absent when no views were recorded."""
    ops = memory_ops(episode)
    if ops is None:
        return None
    views = ops[ops["op"].eq("opinion")]
    if views.empty:
        return None
    said = lines(episode)
    turns = agent_turns(episode)
    faults = 0
    for (agent, eid), held in views.groupby(["agent", "event_id"], sort=True):
        line = said[said["agent"].eq(agent) & said["event_id"].eq(eid)]
        if line.empty:
            continue
        reply = " ".join(
            turns[turns["line_id"].eq(line["line_id"].iloc[0]) & turns["agent"].eq(agent)]["text"]
        )
        founded = {str(t).lower(): float(f) for t, f in zip(held["subject"], held["importance"])}
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
    )
)
