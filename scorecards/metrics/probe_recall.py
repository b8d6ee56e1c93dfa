"""`probe_recall`: whether an interviewed agent recalls topic, source and uncertainty intact."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import acceptable, answer_rows
from ._rows import eq


def probe_recall(episode: Episode) -> float | None:
    """Probe answers with the true value, an acceptable source and the truth's modality ÷
    probes (kind `probe`, about tracked propositions, the origin's own excluded).

    The source rule is `provenance`'s, or the true origin when its name reached the agent
    (`acceptable`): an answer nothing reached the agent for is a guess, and a miss, as is an
    "I don't know". Absent (None) only when the episode has no such probe.
    """
    asked = answer_rows(episode, ("probe",))
    if not asked:
        return None
    hit = sum(
        eq(a.answer_value, a.truth.value)
        and eq(a.answer_modality, a.truth.modality)
        and acceptable(episode, a)
        for a in asked
    )
    return float(hit) / len(asked)


METRIC = register(
    Metric(
        name="probe_recall",
        direction="max",
        range=(0.0, 1.0),
        definition="share of probe answers giving the true value, an acceptable source (a real "
        "informant, or the true origin whose name reached the agent) and the truth's modality",
        internal=False,
        fn=probe_recall,
        reads=("exposures", "probes", "truth"),
    )
)
