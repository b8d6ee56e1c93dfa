"""`uncertainty_preservation`: how much of the audience knows an uncertain matter as such."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import audience_pairs, census_knowers_rows, tracked_rows
from ._independence import independently_reached
from ._rows import hedge


def uncertainty_preservation(episode: Episode) -> float | None:
    """Audience members of an uncertain proposition who know it and answer it hedged ÷ that
    audience (origin excluded).

    A proposition is uncertain when its truth's modality is `likely` or `rumor`; a hedged
    answer states `likely` or `rumor` (a null modality states nothing and preserves nothing).
    Coverage and fidelity together: "might" kept by a few is not "might" kept, and silence
    keeps nothing. A member whose last census answer came after two independent sources
    reached it (a proposition with several origins, `_independence`) is past hedging and not
    counted. Absent (None) only when no uncertain tracked proposition has an audience
    beyond its origins (or all of it was so reached).
    """
    uncertain = {t.proposition: t for t in tracked_rows(episode) if hedge(t.modality)}
    pairs = audience_pairs(list(uncertain.values()))
    if not pairs:
        return None
    knowers = [k for k in census_knowers_rows(episode) if k.proposition in uncertain]
    # reached by two independent sources (several origins): past what this asks of anyone
    settled = {
        (k.proposition, k.agent)
        for k in knowers
        if independently_reached(episode, uncertain[k.proposition], k.agent, k.tick)
    }
    pairs = [pair for pair in pairs if pair not in settled]
    if not pairs:
        return None
    hedged = {(k.proposition, k.agent) for k in knowers if hedge(k.answer_modality)}
    return sum(pair in hedged for pair in pairs) / len(pairs)


METRIC = register(
    Metric(
        name="uncertainty_preservation",
        direction="max",
        range=(0.0, 1.0),
        definition="share of each uncertain (likely/rumor) tracked proposition's audience "
        "(origins excluded; and anyone two independent origins reached, who may hold it certain) "
        "whose last census answer gives the true value with a likely/rumor modality",
        internal=False,
        fn=uncertainty_preservation,
        reads=("exposures", "probes", "truth"),
    )
)
