"""`action_consistency`: whether agents act in line with what they were exposed to."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import first_exposure_rows
from ._rows import columns, require
from ._tables import ACTIONS


def action_consistency(episode: Episode) -> float | None:
    """Decision-point actions in line with the deciding proposition ÷ such actions with an
    earlier exposure of the acting agent to that proposition.

    An action counts only if the agent was exposed (any channel, any value) at a tick before
    the action's; `in_line` null counts as not in line. Absent (None) when no action answers a
    decision point, or none was preceded by an exposure: there is nothing to observe.
    """
    require(episode, "actions", ACTIONS)
    fields = ("agent", "proposition", "decision_point", "in_line", "tick")
    agents, props, points, in_line, ticks = columns(episode, "actions", fields)
    decided = [i for i, point in enumerate(points) if point is not None]
    if not decided:
        return None
    first = first_exposure_rows(episode)
    informed = [
        bool(in_line[i])
        for i in decided
        if (exposed := first.get((agents[i], props[i]))) is not None and exposed < ticks[i]
    ]
    if not informed:
        return None
    return float(sum(informed)) / len(informed)


METRIC = register(
    Metric(
        name="action_consistency",
        direction="max",
        range=(0.0, 1.0),
        definition="share of decision-point actions in line with the deciding proposition, "
        "among those the agent took after an exposure to it; absent with none",
        internal=False,
        fn=action_consistency,
    )
)
