"""`stale_action_rate`: acting against a fact known for at least a plan horizon."""

from __future__ import annotations

import numpy as np

from ._base import Episode, Metric, register
from ._exposures import first_exposure
from ._tables import ACTIONS, flag, table, ticks

DECISIONS = (*ACTIONS, "horizon")


def stale_action_rate(episode: Episode) -> float | None:
    """Decision-point actions not in line ÷ decision-point actions whose agent was exposed to
    the deciding proposition (any value, any channel) at least one plan horizon earlier.

    The exposure must be at a tick <= action tick - max(horizon, 1); a null horizon counts as 1,
    the `action_consistency` rule (an exposure strictly before the action). `in_line` null
    counts as not in line. Absent (None), like `action_consistency`, when no action answers a
    decision point or none had such an exposure: there is nothing to observe.
    """
    actions = table(episode, "actions", DECISIONS)
    decided = actions[actions["decision_point"].notna()]
    if decided.empty:
        return None
    first = first_exposure(episode).rename(columns={"tick": "exposed"})
    informed = decided.merge(first, on=["agent", "proposition"])
    horizon = np.maximum(informed["horizon"].astype("Float64").fillna(1).to_numpy(float), 1.0)
    latest = ticks(informed["tick"]).to_numpy() - horizon  # the last tick an exposure counts
    early = informed["exposed"].to_numpy(float) <= latest
    informed = informed[early]
    if informed.empty:
        return None
    return float((~flag(informed["in_line"])).sum()) / len(informed)


METRIC = register(
    Metric(
        name="stale_action_rate",
        direction="min",
        range=(0.0, 1.0),
        definition="share of decision-point actions not in line with the deciding proposition, "
        "among those whose agent was exposed to it at least one plan horizon before; absent "
        "with none",
        internal=False,
        fn=stale_action_rate,
    )
)
