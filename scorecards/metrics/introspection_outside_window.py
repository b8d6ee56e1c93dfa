"""`introspection_outside_window`: looking back happens only between 23:00 and 02:00."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import DAY, clock, lines
from ._memory import memory_rows

WINDOW = (23 * 60, 2 * 60)


def introspection_outside_window(episode: Episode) -> float | None:
    """Introspection entries (memory_ops op 'introspect') at a time of day outside 23:00–02:00;
    absent when the agent exposes no memory operations."""
    looks = memory_rows(episode, "introspect", ("tick",))
    if looks is None or not lines(episode):
        return None
    start, per_tick = clock(episode)
    outside = 0
    for (tick,) in looks:
        time = (start + int(tick) * per_tick) % DAY
        outside += not (time >= WINDOW[0] or time < WINDOW[1])
    return float(outside)


METRIC = register(
    Metric(
        name="introspection_outside_window",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of introspection entries outside 23:00-02:00; absent without memory_ops",
        internal=False,
        fn=introspection_outside_window,
        reads=("characters", "dialogue", "memory_ops"),
    )
)
