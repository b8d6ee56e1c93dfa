"""`time_to_replan`: how long an agent keeps its old plan after learning a blocking fact."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._replan import replan_delays
from ._rows import mean


def time_to_replan(episode: Episode) -> float | None:
    """Mean over agents of the ticks from the first exposure to a deciding proposition to the
    first in-line decision-point action after it (censored at the episode end).

    Counted per (agent, proposition) for agents that answered a decision point on the
    proposition and were exposed to it. Absent (None), like `action_consistency`, when there
    is no such agent.
    """
    delays = replan_delays(episode)
    if not delays:
        return None
    return mean(d.delay for d in delays)


METRIC = register(
    Metric(
        name="time_to_replan",
        direction="min",
        range=(0.0, float("inf")),
        definition="mean ticks from an agent's first exposure to a deciding proposition to its "
        "first in-line decision-point action after it, censored at the last census; absent "
        "with no exposed decider",
        internal=False,
        fn=time_to_replan,
        reads=("actions", "decision_points", "exposures", "probes", "truth"),
    )
)
