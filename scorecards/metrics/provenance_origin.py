"""`provenance_origin`: whether knowers can say where what they know started."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census import census_knowers, tracked
from ._sources import origin_named


def provenance_origin(episode: Episode) -> float | None:
    """Knowers whose census answer names the true origin ÷ knowers, over tracked propositions
    that have an origin.

    `self` is a fair origin after a first-hand exposure (an agent who saw the barrier itself).
    Hearsay passed on without its origin loses it: an agent told by Bo what Ana saw must say
    Ana. With no knowers the value is 0.0; absent (None) when no tracked proposition has an
    origin in the scenario (an unsigned note).
    """
    truth = tracked(episode)
    truth = truth[truth["origin"].notna()]
    if truth.empty:
        return None
    known = census_knowers(episode)
    known = known[known["proposition"].isin(truth["proposition"])]
    if known.empty:
        return 0.0
    return float(origin_named(known.reset_index(drop=True), episode).sum()) / len(known)


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
