"""`proactive_over_budget`: unprompted messages beyond the persona's daily budget."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import DAY, agent_turns, characters, lines


def proactive_over_budget(episode: Episode) -> float | None:
    """Per agent and day, unprompted messages past the persona's messages a day; summed."""
    if not lines(episode):
        return None
    budget = {c.agent: c.messages_per_day for c in characters(episode)}
    per_day: dict[tuple[str, int], int] = {}
    for t in agent_turns(episode):
        if t.turn == "proactive" and t.agent is not None:  # groupby skips a null key
            key = (t.agent, int(t.at) // DAY)
            per_day[key] = per_day.get(key, 0) + 1
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
        reads=("characters", "dialogue"),
    )
)
