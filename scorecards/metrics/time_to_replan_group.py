"""`time_to_replan_group`: how long until the last member of the group has replanned."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._replan import replan_delays
from ._rows import mean


def time_to_replan_group(episode: Episode) -> float | None:
    """Per deciding proposition, the largest replanning delay over its agents (the last
    member), averaged over deciding propositions; censored at the episode end.

    Absent (None) exactly when `time_to_replan` is.
    """
    delays = replan_delays(episode)
    if not delays:
        return None
    last: dict[object, float] = {}
    for d in delays:
        last[d.proposition] = max(last.get(d.proposition, d.delay), d.delay)
    return mean(last.values())


METRIC = register(
    Metric(
        name="time_to_replan_group",
        direction="min",
        range=(0.0, float("inf")),
        definition="ticks until the last agent exposed to a deciding proposition acts in line "
        "(max over agents of time_to_replan's delays, mean over propositions), censored",
        internal=False,
        fn=time_to_replan_group,
        reads=("actions", "decision_points", "exposures", "probes", "truth"),
    )
)
