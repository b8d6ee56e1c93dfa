"""`uncertainty_preservation`: whether "might" survives the hops to the census."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import census_knowers_rows, tracked_rows
from ._rows import hedge


def uncertainty_preservation(episode: Episode) -> float | None:
    """Knowers of an uncertain proposition whose census answer is hedged ÷ such knowers.

    A proposition is uncertain when its truth's modality is `likely` or `rumor`; a hedged
    answer states `likely` or `rumor` (a null modality states nothing and preserves nothing).
    With no knowers the value is 0.0, so silence is not rewarded; absent (None) only when no
    tracked proposition is uncertain.
    """
    hedged = {t.proposition for t in tracked_rows(episode) if hedge(t.modality)}
    if not hedged:
        return None
    known = [k for k in census_knowers_rows(episode) if k.proposition in hedged]
    if not known:
        return 0.0
    return float(sum(hedge(k.answer_modality) for k in known)) / len(known)


METRIC = register(
    Metric(
        name="uncertainty_preservation",
        direction="max",
        range=(0.0, 1.0),
        definition="share of knowers of an uncertain (likely/rumor) tracked proposition whose "
        "census answer keeps a likely/rumor modality; 0 with no knowers",
        internal=False,
        fn=uncertainty_preservation,
    )
)
