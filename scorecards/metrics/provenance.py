"""`provenance`: how much of the audience knows a proposition and can name its informant."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import audience_pairs, census_knowers_rows, vouched
from ._truth import tracked_rows


def provenance(episode: Episode) -> float | None:
    """Audience members who know and name their informant ÷ audience (origin excluded),
    pooled over tracked propositions - `reach`'s pairs.

    The informant: an agent who told this agent the proposition (per exposures) at or before
    the census answer, or `self` after a first-hand exposure; naming the origin when the
    origin did not tell it is not naming the informant (see `provenance_origin`). Coverage and
    fidelity together: a village where a few know and name sources scores low, and a silent
    one 0. Absent (None) only when no tracked proposition has an audience beyond its origin.
    """
    pairs = audience_pairs(tracked_rows(episode))
    if not pairs:
        return None
    named = {
        (k.proposition, k.agent)
        for k in census_knowers_rows(episode)
        if vouched(episode, k.agent, k.proposition, k.answer_source, k.tick)
    }
    return sum(pair in named for pair in pairs) / len(pairs)


METRIC = register(
    Metric(
        name="provenance",
        direction="max",
        range=(0.0, 1.0),
        definition="share of each tracked proposition's audience (origin excluded) whose last "
        "census answer gives the true value and names a real informant (or self after a "
        "first-hand exposure)",
        internal=False,
        fn=provenance,
        reads=("exposures", "probes", "truth"),
    )
)
