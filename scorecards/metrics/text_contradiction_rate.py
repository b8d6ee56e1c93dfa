"""`text_contradiction_rate` (internal): how often an agent's own words contradict its claim."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._claim_text import contradictions
from ._tables import table

COLUMNS = ("speaker", "listener", "modality", "stated_source", "text")


def text_contradiction_rate(episode: Episode) -> float | None:
    """Utterances in the agent's own words whose hedging or stated source contradicts the
    structured claim ÷ utterances in the agent's own words.

    Absent (None) when no utterance carries the agent's own words (the harness rendered them,
    and its templates agree with the claim by construction).
    """
    said = table(episode, "utterances", COLUMNS)
    if "text_by" not in said.columns:  # traces from before agents could author words
        return None
    own = said[said["text_by"] == "agent"]
    if own.empty:
        return None
    people = set(said["speaker"].dropna()) | set(said["listener"].dropna())
    flagged = sum(
        bool(contradictions(text, modality, source, people))
        for text, modality, source in zip(own["text"], own["modality"], own["stated_source"])
    )
    return flagged / len(own)


METRIC = register(
    Metric(
        name="text_contradiction_rate",
        direction="min",
        range=(0.0, 1.0),
        definition="internal: share of utterances in an agent's own words whose hedging or "
        "stated source contradicts the structured claim; absent when no agent authored words",
        internal=True,
        fn=text_contradiction_rate,
        reads=("utterances",),
    )
)
