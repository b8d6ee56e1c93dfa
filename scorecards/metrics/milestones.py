"""`milestones`: how far an agent's project got (design §3, the room ecology's pass criterion)."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._rows import columns, eq, require


def milestones(episode: Episode) -> float:
    """Milestone events past each work's first stage, over all works and agents.

    Milestone events (kind `milestone`, the stage in `detail`) are what a project action leaves
    when it succeeds. A project moves through its stages in order and starts again at the first
    for the next work, so each agent's first milestone names its project's first stage
    (preparation), and every milestone naming another stage counts: two finished paintings of
    five stages count 8. Never absent: an agent that never works scores 0 (scenarios opt in by
    listing the metric).
    """
    require(episode, "events", ("kind", "agent", "detail"))
    fields = ("kind", "agent", "detail", "tick", "event_id")
    kinds, agents, details, ticks, events = columns(episode, "events", fields)
    reached = [
        ("" if a is None else str(a), int(t), int(e), "" if d is None else str(d))
        for k, a, d, t, e in zip(kinds, agents, details, ticks, events)
        if eq(k, "milestone")
    ]
    first: dict[str, tuple[int, int, str]] = {}  # each agent's first milestone (a fixed order)
    for agent, tick, event, detail in reached:
        order = (tick, event, detail)
        if agent not in first or order < first[agent]:
            first[agent] = order
    return float(sum(detail != first[agent][2] for agent, _, _, detail in reached))


METRIC = register(
    Metric(
        name="milestones",
        direction="max",
        range=(0.0, float("inf")),
        definition="milestone events past each work's first stage (preparation), over all "
        "works and agents; 0 when nobody works",
        internal=False,
        fn=milestones,
        reads=("events",),
    )
)
