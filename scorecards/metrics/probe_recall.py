"""`probe_recall`: whether an interviewed agent recalls topic, source and uncertainty intact."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import Answer, acceptable, answer_rows, exposed_to_value
from ._rows import eq


def probe_recall(episode: Episode) -> float | None:
    """Probe answers with the right value, an acceptable source and the truth's modality ÷
    probes (kinds `probe` and `probe_replaced`, about tracked propositions, the origin's own
    excluded).

    The right value is the one holding at the probe's tick; a `probe_replaced` asks which
    value that one replaced. Of a value that changes, the right value counts only when it
    reached the agent (and, asked what was replaced, the current one too: naming the oldest
    value heard is no answer to what the news replaced). The source rule is `provenance`'s,
    or the true origin when its name reached the agent (`acceptable`): an answer nothing
    reached the agent for is a guess, and a miss, as is an "I don't know". Absent (None) only
    when the episode has no such probe.
    """
    asked = answer_rows(episode, ("probe", "probe_replaced"))
    if not asked:
        return None
    hit = sum(
        _right_value(episode, a)
        and eq(a.answer_modality, a.truth.modality)
        and acceptable(episode, a)
        for a in asked
    )
    return float(hit) / len(asked)


def _right_value(episode: Episode, a: Answer) -> bool:
    t = a.truth
    if eq(a.kind, "probe_replaced"):
        current = t.value_at(a.tick)
        return (
            eq(a.answer_value, t.replaced_at(a.tick))
            and exposed_to_value(episode, a.agent, a.proposition, a.answer_value, a.tick)
            and exposed_to_value(episode, a.agent, a.proposition, current, a.tick)
        )
    right = eq(a.answer_value, t.value_at(a.tick))
    if not t.changes:
        return right
    return right and exposed_to_value(episode, a.agent, a.proposition, a.answer_value, a.tick)


METRIC = register(
    Metric(
        name="probe_recall",
        direction="max",
        range=(0.0, 1.0),
        definition="share of probe answers giving the true value (now, or the one it replaced "
        "when asked), an acceptable source (a real informant, or the true origin whose name "
        "reached the agent) and the truth's modality",
        internal=False,
        fn=probe_recall,
        reads=("exposures", "probes", "truth", "utterances"),
    )
)
