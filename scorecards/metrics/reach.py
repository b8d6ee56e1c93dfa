"""`reach`: how much of a tracked proposition's intended audience knows it at the census."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import audience_known
from ._truth import tracked_rows


def reach(episode: Episode) -> float | None:
    """Knowers in the audience ÷ audience, origin excluded, pooled over tracked propositions.

    Outsiders who know never raise reach (they lower containment). A silent village scores 0;
    the metric is absent (None) only when no tracked proposition has an audience beyond its
    origin.
    """
    return audience_known(episode, tracked_rows(episode))


METRIC = register(
    Metric(
        name="reach",
        direction="max",
        range=(0.0, 1.0),
        definition="share of each tracked proposition's audience (origin excluded) whose last "
        "census answer gives the true value, pooled over propositions",
        internal=False,
        fn=reach,
        reads=("exposures", "probes", "truth"),
    )
)
