"""`action_consistency`: whether agents act in line with what they were exposed to."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._exposures import first_exposure
from ._tables import ACTIONS, flag, table


def action_consistency(episode: Episode) -> float | None:
    """Decision-point actions in line with the deciding proposition ÷ such actions with an
    earlier exposure of the acting agent to that proposition.

    An action counts only if the agent was exposed (any channel, any value) at a tick before
    the action's; `in_line` null counts as not in line. Absent (None) when no action answers a
    decision point, or none was preceded by an exposure: there is nothing to observe.
    """
    actions = table(episode, "actions", ACTIONS)
    decided = actions[actions["decision_point"].notna()]
    if decided.empty:
        return None
    first = first_exposure(episode)
    informed = decided.merge(first, on=["agent", "proposition"], suffixes=("", "_exposed"))
    informed = informed[informed["tick_exposed"] < informed["tick"]]
    if informed.empty:
        return None
    return float(flag(informed["in_line"]).sum()) / len(informed)


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
