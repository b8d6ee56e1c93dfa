"""`stale_action_rate`: acting against a fact known for at least a plan horizon."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._decisions import decisions


def stale_action_rate(episode: Episode) -> float | None:
    """Decision actions not in line ÷ decision actions whose agent was exposed to the deciding
    proposition (any value, any channel) at least one plan horizon earlier.

    The exposure must be at a tick <= action tick - max(horizon, 1); a null horizon counts as
    1. An agent that does not act is not stale - `action_consistency` counts it as not in
    line. Absent (None) when the scenario has no decision point or no action had such an
    exposure.
    """
    rows = decisions(episode)
    early = [
        d
        for d in rows or ()
        if d.acted is not None and d.exposed is not None and d.exposed <= d.acted - d.horizon
    ]
    if not early:
        return None
    return float(sum(not d.in_line for d in early)) / len(early)


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
        reads=("actions", "decision_points", "exposures", "truth"),
    )
)
