"""`memory_load` (internal): how full agents' memories end up."""

from __future__ import annotations

import math

import numpy as np

from ._base import Episode, Metric, register
from ._memory import memory_ops
from ._tables import ticks


def memory_load(episode: Episode) -> float | None:
    """Mean over agents of the last memory operation's size ÷ capacity, capped at 1.

    Only rows with a size and a positive capacity count; the last is by (tick, event_id),
    ties broken on size then capacity so row order never matters. Absent (None) when the
    episode has no memory_ops rows, or none of them reports a size and a capacity.
    """
    ops = memory_ops(episode)
    if ops is None:
        return None
    ops = ops[ops["size"].notna() & ops["capacity"].notna()]
    ops = ops[ops["capacity"].astype("float64") > 0]
    if ops.empty:
        return None
    ops = ops[["agent", "tick", "event_id", "size", "capacity"]].assign(tick=ticks(ops["tick"]))
    order = ["agent", "tick", "event_id", "size", "capacity"]
    last = ops.sort_values(order, kind="mergesort").drop_duplicates("agent", keep="last")
    load = np.minimum(last["size"].to_numpy(float) / last["capacity"].to_numpy(float), 1.0)
    return math.fsum(np.sort(load).tolist()) / len(load)


METRIC = register(
    Metric(
        name="memory_load",
        direction="min",
        range=(0.0, 1.0),
        definition="internal: mean over agents of the last memory_ops size / capacity (capped "
        "at 1); absent without memory_ops",
        internal=True,
        fn=memory_load,
        reads=("memory_ops",),
    )
)
