"""`uncertainty_preservation`: whether "might" survives the hops to the census."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census import census_knowers, tracked
from ._tables import uncertain


def uncertainty_preservation(episode: Episode) -> float | None:
    """Knowers of an uncertain proposition whose census answer is hedged ÷ such knowers.

    A proposition is uncertain when its truth's modality is `likely` or `rumor`; a hedged
    answer states `likely` or `rumor` (a null modality states nothing and preserves nothing).
    With no knowers the value is 0.0, so silence is not rewarded; absent (None) only when no
    tracked proposition is uncertain.
    """
    truth = tracked(episode)
    truth = truth[uncertain(truth["modality"])]
    if truth.empty:
        return None
    known = census_knowers(episode)
    known = known[known["proposition"].isin(truth["proposition"])]
    if known.empty:
        return 0.0
    return float(uncertain(known["answer_modality"]).sum()) / len(known)


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
