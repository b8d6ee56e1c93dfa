"""`provenance`: whether knowers can name the informant they really had for what they know."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import census_knowers_rows, tracked_rows, vouched


def provenance(episode: Episode) -> float | None:
    """Knowers whose census answer names their informant ÷ knowers.

    The informant: an agent who told this agent the proposition (per exposures) at or before
    the census answer, or `self` after a first-hand exposure; naming the origin when the
    origin did not tell it is not naming the informant (see `provenance_origin`). Knowers are every
    non-origin agent with the true value, in the audience or not. With no knowers the value is
    0.0: a village where nobody knows names no sources. Absent (None) only when the episode
    tracks no proposition.
    """
    if not tracked_rows(episode):
        return None
    known = census_knowers_rows(episode)
    if not known:
        return 0.0
    named = sum(vouched(episode, k.agent, k.proposition, k.answer_source, k.tick) for k in known)
    return float(named) / len(known)


METRIC = register(
    Metric(
        name="provenance",
        direction="max",
        range=(0.0, 1.0),
        definition="share of knowers (origin excluded) whose census answer names a real "
        "informant, or self after a first-hand exposure; 0 with no knowers",
        internal=False,
        fn=provenance,
    )
)
