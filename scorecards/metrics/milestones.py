"""`milestones`: how far an agent's project got (DESIGN §3, the room ecology's pass criterion)."""

from __future__ import annotations

import pandas as pd

from ._base import Episode, Metric, register
from ._tables import table, ticks


def milestones(episode: Episode) -> float:
    """Milestone events past each work's first stage, over all works and agents.

    Milestone events (kind `milestone`, the stage in `detail`) are what a project action leaves
    when it succeeds. A project moves through its stages in order and starts again at the first
    for the next work, so each agent's first milestone names its project's first stage
    (preparation), and every milestone naming another stage counts: two finished paintings of
    five stages count 8. Never absent: an agent that never works scores 0 (scenarios opt in by
    listing the metric).
    """
    events = table(episode, "events", ("kind", "agent", "detail"))
    reached = events[events["kind"].eq("milestone").fillna(False).astype(bool)]
    if reached.empty:
        return 0.0
    reached = pd.DataFrame(
        {
            "agent": reached["agent"].fillna("").astype(str).to_numpy(object),
            "detail": reached["detail"].fillna("").astype(str).to_numpy(object),
            "tick": ticks(reached["tick"]).to_numpy(),
            "event_id": reached["event_id"].astype("int64").to_numpy(),
        }
    ).sort_values(["agent", "tick", "event_id", "detail"], kind="mergesort")  # a fixed order
    first = reached.groupby("agent", sort=False)["detail"].transform("first")
    return float((reached["detail"] != first).sum())


METRIC = register(
    Metric(
        name="milestones",
        direction="max",
        range=(0.0, float("inf")),
        definition="milestone events past each work's first stage (preparation), over all "
        "works and agents; 0 when nobody works",
        internal=False,
        fn=milestones,
    )
)
