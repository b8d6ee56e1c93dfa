"""`uncertainty_preservation`: how much of the audience knows an uncertain matter as such."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import audience_pairs, census_knowers_rows, tracked_rows
from ._independence import warranted
from ._rows import hedge


def uncertainty_preservation(episode: Episode) -> float | None:
    """Audience members of an uncertain proposition who know it and answer it hedged ÷ that
    audience (origin excluded).

    A proposition is uncertain when its truth's modality is `likely` or `rumor`; a hedged
    answer states `likely` or `rumor` (a null modality states nothing and preserves nothing).
    Coverage and fidelity together: "might" kept by a few is not "might" kept, and silence
    keeps nothing. With several origins, uncertain when any origin's report is; a member
    whose evidence by its last census answer warrants certainty (`_independence.warranted`:
    two independent sources, or a certain origin's word) is past hedging and not counted. Absent (None) only when no uncertain tracked proposition has an audience
    beyond its origins (or all of it was so reached).
    """
    uncertain = {
        t.proposition: t
        for t in tracked_rows(episode)
        if hedge(t.modality) or (len(t.origin_ticks) > 1 and any(map(hedge, t.origin_modalities)))
    }
    pairs = audience_pairs(list(uncertain.values()))
    if not pairs:
        return None
    knowers = [k for k in census_knowers_rows(episode) if k.proposition in uncertain]
    # several origins: one whose evidence warrants certainty (two independent sources, or a
    # certain witness's word) is past what this asks of anyone
    settled = {
        (k.proposition, k.agent)
        for k in knowers
        if not hedge(
            warranted(episode, t := uncertain[k.proposition], k.agent, k.tick) or t.modality
        )
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
