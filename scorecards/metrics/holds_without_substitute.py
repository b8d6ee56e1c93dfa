"""`holds_without_substitute`: a held-back urge to speak always comes with something else."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import clock, lines
from ._tables import table

HOLD_MINUTES = 20
PLANS = ("agent", "action", "reason")
ACTS = ("agent", "action", "ok")


def holds_without_substitute(episode: Episode) -> float | None:
    """Holds (plans rows with reason 'hold') not followed within 20 minutes by an action of
    the agent named as the substitute. Holds are an agent's account; the action is what the
    harness saw it do."""
    if lines(episode).empty:
        return None
    holds = table(episode, "plans", PLANS)
    holds = holds[holds["reason"].eq("hold")]
    acts = table(episode, "actions", ACTS)
    _, per_tick = clock(episode)
    reach = HOLD_MINUTES // per_tick
    missing = 0
    for h in holds.itertuples():
        done = acts[
            acts["agent"].eq(h.agent)
            & acts["action"].eq(h.action)
            & acts["tick"].between(h.tick, h.tick + reach)
        ]
        missing += done.empty
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
    )
)
