"""`action_consistency`: whether agents act in line with what they were exposed to."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._decisions import decisions


def action_consistency(episode: Episode) -> float | None:
    """Informed agents who acted in line with the deciding proposition ÷ informed agents, per
    (agent, decision point).

    Informed: exposed to the deciding proposition (any channel, any value) at a tick before
    the decision action, or by the decision point's close when it took none - an informed
    agent that does not act counts as not in line, never as absent. An action with no
    exposure before it earns nothing (a lucky guess is not knowledge). 0.0 when the scenario
    has decision points but nobody faced one informed; absent (None) only when it has none.
    """
    rows = decisions(episode)
    if rows is None:
        return None
    informed = [d for d in rows if d.informed]
    if not informed:
        return 0.0
    return float(sum(d.acted is not None and d.in_line for d in informed)) / len(informed)


METRIC = register(
    Metric(
        name="action_consistency",
        direction="max",
        range=(0.0, 1.0),
        definition="share of (agent, decision point) pairs faced informed (exposed before the "
        "action, or by the close without one) where the agent acted in line; not acting counts "
        "as not in line",
        internal=False,
        fn=action_consistency,
        reads=("actions", "decision_points", "exposures"),
    )
)
