"""`memory_noise`: how much of what an agent retrieves is beside the point - the cost of recall
(more recall brings more to mind that does not help), from the memory operations the agent
exposes; weighted in the objective, so recalling more is never free."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._memory import memory_rows


def memory_noise(episode: Episode) -> float | None:
    """Retrieved experiences not marked relevant ÷ retrieved experiences.

    A null `relevant` counts as not relevant (relevance unknown is not relevance, as a null
    `in_line` is not in line); a retrieval that returned nothing (a null experience id) is
    not counted. 0.0 when there are memory operations but no retrieval; absent (None) when
    the episode has no memory_ops rows (the agent exposes no internals). Read as plain values
    from the retrieve rows alone (a DataFrame of the whole table cost more than the rest of
    an episode's metrics).
    """
    rows = memory_rows(episode, "retrieve", ("experience_id", "relevant"))
    if rows is None:
        return None
    found = [relevant for experience, relevant in rows if experience is not None]
    if not found:
        return 0.0
    return float(sum(not relevant for relevant in found)) / len(found)


METRIC = register(
    Metric(
        name="memory_noise",
        direction="min",
        range=(0.0, 1.0),
        definition="internal (the agent's own report): share of retrieved experiences it "
        "marked not relevant; 0 with no retrievals, absent without memory_ops",
        internal=True,
        fn=memory_noise,
        reads=("memory_ops",),
    )
)
