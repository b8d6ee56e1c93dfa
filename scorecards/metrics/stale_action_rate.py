"""`stale_action_rate`: acting against a fact known for at least a plan horizon."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import first_exposure_rows
from ._rows import columns, require
from ._tables import ACTIONS

DECISIONS = (*ACTIONS, "horizon")


def stale_action_rate(episode: Episode) -> float | None:
    """Decision-point actions not in line ÷ decision-point actions whose agent was exposed to
    the deciding proposition (any value, any channel) at least one plan horizon earlier.

    The exposure must be at a tick <= action tick - max(horizon, 1); a null horizon counts as 1,
    the `action_consistency` rule (an exposure strictly before the action). `in_line` null
    counts as not in line. Absent (None), like `action_consistency`, when no action answers a
    decision point or none had such an exposure: there is nothing to observe.
    """
    require(episode, "actions", DECISIONS)
    fields = ("agent", "proposition", "decision_point", "in_line", "tick", "horizon")
    agents, props, points, in_line, ticks, horizons = columns(episode, "actions", fields)
    decided = [i for i, point in enumerate(points) if point is not None]
    if not decided:
        return None
    first = first_exposure_rows(episode)
    informed = []
    for i in decided:
        exposed = first.get((agents[i], props[i]))
        horizon = max(float(1 if horizons[i] is None else horizons[i]), 1.0)
        if exposed is not None and exposed <= ticks[i] - horizon:  # the last tick that counts
            informed.append(not in_line[i])
    if not informed:
        return None
    return float(sum(informed)) / len(informed)


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
