"""`action_consistency`: whether agents act in line with what they were exposed to."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._decisions import decisions


def action_consistency(episode: Episode) -> float | None:
    """(Agent, decision point) pairs where the agent acted in line for a reason ÷ pairs, over
    every agent the point concerns (its deciders, whoever's errand does its action that day,
    else the deciding truth's audience), took the decision action or faced it informed.

    Informed: exposed to the deciding proposition (any channel, any value) at a tick before
    the decision action, or by the decision point's close when it took none - an informed
    agent that does not act is not in line, never absent. In line for a reason: informed, or
    keeping the target its own errand named when that was right anyway (an agent need know
    nothing to keep a good plan); a right turn away from its plan with no exposure is luck
    and earns nothing. Coverage and fidelity together: a village where one knows and acts
    well while the rest walk into the closed bakery scores low. 0.0 when the scenario has
    decision points but nobody faced one; absent (None) only when it has none.
    """
    rows = decisions(episode)
    if rows is None:
        return None
    if not rows:
        return 0.0
    return float(sum(d.right for d in rows)) / len(rows)


METRIC = register(
    Metric(
        name="action_consistency",
        direction="max",
        range=(0.0, 1.0),
        definition="share of agents at a decision point (those it concerns, acting or not, and "
        "any who took its action or were exposed by its close) who acted in line knowing the "
        "deciding fact (for a condition, the facts that settle it), or kept a plan that was "
        "right anyway; not acting, or a lucky turn, is not in line",
        internal=False,
        fn=action_consistency,
        reads=("actions", "decision_points", "exposures", "truth"),
    )
)
