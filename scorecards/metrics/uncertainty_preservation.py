"""`uncertainty_preservation`: how much of the audience knows an uncertain matter as such."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import audience_pairs, census_knowers_rows, tracked_rows
from ._rows import hedge


def uncertainty_preservation(episode: Episode) -> float | None:
    """Audience members of an uncertain proposition who know it and answer it hedged ÷ that
    audience (origin excluded).

    A proposition is uncertain when its truth's modality is `likely` or `rumor`; a hedged
    answer states `likely` or `rumor` (a null modality states nothing and preserves nothing).
    Coverage and fidelity together: "might" kept by a few is not "might" kept, and silence
    keeps nothing. Absent (None) only when no uncertain tracked proposition has an audience
    beyond its origin.
    """
    pairs = audience_pairs([t for t in tracked_rows(episode) if hedge(t.modality)])
    if not pairs:
        return None
    hedged = {
        (k.proposition, k.agent) for k in census_knowers_rows(episode) if hedge(k.answer_modality)
    }
    return sum(pair in hedged for pair in pairs) / len(pairs)


METRIC = register(
    Metric(
        name="uncertainty_preservation",
        direction="max",
        range=(0.0, 1.0),
        definition="share of each uncertain (likely/rumor) tracked proposition's audience "
        "(origin excluded) whose last census answer gives the true value with a likely/rumor "
        "modality",
        internal=False,
        fn=uncertainty_preservation,
        reads=("exposures", "probes", "truth"),
    )
)
