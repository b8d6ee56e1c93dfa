"""`holds_without_substitute`: a held-back urge to speak always comes with something else."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import clock, lines
from ._rows import column, eq, require

HOLD_MINUTES = 20
PLANS = ("agent", "action", "reason")
ACTS = ("agent", "action", "ok")


def holds_without_substitute(episode: Episode) -> float | None:
    """Holds (plans rows with reason 'hold') not followed within 20 minutes by an action of
    the agent named as the substitute. Holds are an agent's account; the action is what the
    harness saw it do."""
    if not lines(episode):
        return None
    require(episode, "plans", PLANS)
    require(episode, "actions", ACTS)
    holds = [
        (tick, agent, action)
        for tick, agent, action, reason in zip(
            *(column(episode, "plans", c) for c in ("tick", "agent", "action", "reason")),
            strict=True,
        )
        if reason == "hold"
    ]
    acts = list(
        zip(*(column(episode, "actions", c) for c in ("tick", "agent", "action")), strict=True)
    )
    _, per_tick = clock(episode)
    reach = HOLD_MINUTES // per_tick
    missing = 0
    for tick, agent, action in holds:
        missing += not any(
            eq(a, agent) and eq(act, action) and tick <= t <= tick + reach for t, a, act in acts
        )
    return float(missing)


METRIC = register(
    Metric(
        name="holds_without_substitute",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of holds on speaking not followed within 20 minutes by the named "
        "substitute action",
        internal=False,
        fn=holds_without_substitute,
        reads=("actions", "characters", "dialogue", "plans"),
    )
)
