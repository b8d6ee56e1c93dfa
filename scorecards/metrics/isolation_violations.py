"""`isolation_violations`: retrievals that returned another agent's memory (DESIGN §2)."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._memory import memory_ops, retrievals
from ._tables import flag


def isolation_violations(episode: Episode) -> float | None:
    """Count of retrieved experiences whose owner (not null) is not the retrieving agent.

    Absent (None) when the episode has no memory_ops rows (the agent exposes no internals).
    """
    ops = memory_ops(episode)
    if ops is None:
        return None
    found = retrievals(ops)
    foreign = found["experience_owner"].notna() & found["experience_owner"].ne(found["agent"])
    return float(flag(foreign).sum())


METRIC = register(
    Metric(
        name="isolation_violations",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of retrieved experiences owned by another agent than the retriever; "
        "absent without memory_ops",
        internal=False,
        fn=isolation_violations,
    )
)
