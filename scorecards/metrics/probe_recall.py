"""`probe_recall`: whether an interviewed agent recalls topic, source and uncertainty intact."""

from __future__ import annotations

from ._answers import answers
from ._base import Episode, Metric, register
from ._sources import acceptable
from ._tables import flag


def probe_recall(episode: Episode) -> float | None:
    """Probe answers with the true value, an acceptable source and the truth's modality ÷
    probes (kind `probe`, about tracked propositions, the origin's own excluded).

    The source rule is `provenance`'s. An "I don't know" is a miss. Absent (None) only when
    the episode has no such probe.
    """
    asked = answers(episode, ("probe",))
    if asked.empty:
        return None
    hit = flag(asked["answer_value"].eq(asked["value"]))
    hit &= flag(asked["answer_modality"].eq(asked["modality"]))
    hit &= acceptable(asked, episode)
    return float(hit.sum()) / len(asked)


METRIC = register(
    Metric(
        name="probe_recall",
        direction="max",
        range=(0.0, 1.0),
        definition="share of probe answers giving the true value, an acceptable source "
        "(as provenance) and the truth's modality",
        internal=False,
        fn=probe_recall,
    )
)
