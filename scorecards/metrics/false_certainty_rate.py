"""`false_certainty_rate`: how often talk hardens a hedge or a falsehood into certainty."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census import tracked
from ._tables import certain, flag, said, uncertain


def false_certainty_rate(episode: Episode) -> float | None:
    """Utterances stated `certain` that are uncertain or false ÷ utterances about tracked
    propositions (an agent's own: a scenario's scripted lines do not count).

    Uncertain: the truth's modality is `likely` or `rumor`. False: a stated value (not null)
    differs from the true value. No utterance about a tracked proposition gives 0.0 (silence
    hardens nothing; reach punishes silence). Absent (None) only when nothing is tracked.
    """
    truth = tracked(episode)
    if truth.empty:
        return None
    spoken = said(episode)[["proposition", "value", "modality"]]
    truth = truth[["proposition", "value", "modality"]]
    joined = spoken.merge(truth, on="proposition", suffixes=("", "_true"))
    if joined.empty:
        return 0.0
    false = flag(joined["value"].notna() & joined["value"].ne(joined["value_true"]))
    hardened = certain(joined["modality"]) & (uncertain(joined["modality_true"]) | false)
    return float(hardened.sum()) / len(joined)


METRIC = register(
    Metric(
        name="false_certainty_rate",
        direction="min",
        range=(0.0, 1.0),
        definition="share of utterances about tracked propositions stated certain while the "
        "truth is likely/rumor or the stated value is false; 0 with no such utterances",
        internal=False,
        fn=false_certainty_rate,
    )
)
