"""`provenance_origin`: whether knowers can say where what they know started."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import census_knowers_rows, tracked_rows, vouched
from ._rows import eq


def provenance_origin(episode: Episode) -> float | None:
    """Knowers whose census answer names the true origin ÷ knowers, over tracked propositions
    that have an origin.

    `self` is a fair origin after a first-hand exposure (an agent who saw the barrier itself).
    Hearsay passed on without its origin loses it: an agent told by Bo what Ana saw must say
    Ana. With no knowers the value is 0.0; absent (None) when no tracked proposition has an
    origin in the scenario (an unsigned note).
    """
    with_origin = {t.proposition for t in tracked_rows(episode) if t.origin is not None}
    if not with_origin:
        return None
    known = [k for k in census_knowers_rows(episode) if k.proposition in with_origin]
    if not known:
        return 0.0
    named = sum(
        eq(k.answer_origin, k.origin)
        or (
            eq(k.answer_origin, "self") and vouched(episode, k.agent, k.proposition, "self", k.tick)
        )
        for k in known
    )
    return float(named) / len(known)


METRIC = register(
    Metric(
        name="provenance_origin",
        direction="max",
        range=(0.0, 1.0),
        definition="share of knowers (origin excluded) whose census answer names the true "
        "origin, or self after a first-hand exposure; 0 with no knowers",
        internal=False,
        fn=provenance_origin,
    )
)
