"""`proactive_over_budget`: unprompted messages beyond the persona's daily budget."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import DAY, agent_turns, lines, setup


def proactive_over_budget(episode: Episode) -> float | None:
    """Per agent and day, unprompted messages past the persona's messages a day; summed."""
    if lines(episode).empty:
        return None
    budget = {r.agent: int(r.value) for r in setup(episode).itertuples()}
    turns = agent_turns(episode)
    sent = turns[turns["turn"].eq("proactive")]
    per_day = sent.groupby([sent["agent"], sent["at"].astype("int64") // DAY]).size()
    over = sum(max(0, n - budget.get(agent, 0)) for (agent, _), n in per_day.items())
    return float(over)


METRIC = register(
    Metric(
        name="proactive_over_budget",
        direction="min",
        range=(0.0, float("inf")),
        definition="unprompted messages past the persona's daily budget, summed over days",
        internal=False,
        fn=proactive_over_budget,
    )
)
