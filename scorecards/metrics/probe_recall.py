"""`probe_recall`: whether an interviewed agent recalls topic, source and uncertainty intact."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import Answer, acceptable, answer_rows, in_confidence
from ._justified import Verdict, holds_rightly, justified
from ._rows import eq


def probe_recall(episode: Episode) -> float | None:
    """Probe answers with the right value, an acceptable source and a modality its evidence
    allows ÷ probes (kinds `probe` and `probe_replaced`, about tracked propositions, the
    origin's own excluded).

    The right value (`_justified`) is true at the probe's tick and warranted by what reached
    the agent: of a value that changes, the current one once it reached the agent; asked
    what was replaced, the value the current one replaced, both having reached it; of a
    proposition it heard was replaced or retracted, an answer that moved on. The modality is
    judged by the same band as every metric's: told certain, likely is fair; told a rumor,
    certain hardens it; seen itself, anything less understates. The source rule is
    `provenance`'s, or the true origin when its name reached the agent (`acceptable`): an
    answer nothing reached the agent for is a guess, and a miss, as is "I don't know". An
    outsider's answer about a private proposition is not counted (containment judges it),
    and a member of its audience recalls it only if it reached it within its circle (told by
    an origin or another member, or seen itself: `in_confidence`).
    Absent (None) only when the episode has no such probe.
    """
    # an outsider asked a private matter is containment's business: knowing it is a leak,
    # not recall, and not knowing it is no merit of its own
    asked = [
        a
        for a in answer_rows(episode, ("probe", "probe_replaced"))
        if not a.truth.private or a.agent in a.truth.audience
    ]
    if not asked:
        return None
    hit = sum(
        _recalled(episode, a)
        and acceptable(episode, a)
        and in_confidence(episode, a.agent, a.truth, a.tick, a.answer_value)
        for a in asked
    )
    return float(hit) / len(asked)


def _recalled(episode: Episode, a: Answer) -> bool:
    j = justified(episode, a.agent, a.proposition, a.tick)
    if eq(a.kind, "probe_replaced"):
        return (
            j.replaced is not None
            and j.replaced_band is not None
            and eq(a.answer_value, j.replaced)
            and j.replaced_band.admits(a.answer_modality)
        )
    if not holds_rightly(episode, a.agent, a.truth, a.tick, a.answer_value, a.answer_replaced_by):
        return False
    return j.judge(a.answer_value, a.answer_modality) is Verdict.WITHIN


METRIC = register(
    Metric(
        name="probe_recall",
        direction="max",
        range=(0.0, 1.0),
        definition="share of probe answers giving the true, warranted value (now, or the one "
        "it replaced when asked), an acceptable source (a real informant, or the true origin "
        "whose name reached the agent) and a modality inside the band the agent's evidence "
        "allows",
        internal=False,
        fn=probe_recall,
        reads=("exposures", "probes", "truth", "utterances"),
    )
)
