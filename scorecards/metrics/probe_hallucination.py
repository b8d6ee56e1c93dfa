"""`probe_hallucination`: answers asserting a value or a source the agent never had."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import Answer, acceptable, answer_rows, first_value_exposure_rows
from ._rows import ne


def probe_hallucination(episode: Episode) -> float | None:
    """Asserting answers (value not null) that are unfounded ÷ asserting answers.

    Probe and census answers about tracked propositions count (a `probe_replaced` too: the
    value it names as replaced must have reached the agent), the origin's own excluded.
    Unfounded: no exposure of the agent to that proposition with that value at or before the
    answer's tick, or a named source (not null, not `self`) that is neither the true origin
    nor an agent who told it the proposition by then (per exposures). No asserting answer
    gives 0.0; absent (None) only when the episode asks nothing about a tracked proposition.
    """
    asked = answer_rows(episode, ("probe", "probe_replaced", "census"))
    if not asked:
        return None
    asked = [a for a in asked if a.answer_value is not None]
    if not asked:
        return 0.0
    first = first_value_exposure_rows(episode)

    def unfounded(a: Answer) -> bool:
        exposed = first.get((a.agent, a.proposition, a.answer_value))
        if exposed is None or exposed > a.tick:
            return True
        named = a.answer_source is not None and ne(a.answer_source, "self")
        return named and not acceptable(episode, a)

    return float(sum(unfounded(a) for a in asked)) / len(asked)


METRIC = register(
    Metric(
        name="probe_hallucination",
        direction="min",
        range=(0.0, 1.0),
        definition="share of asserting probe/census answers whose value the agent was never "
        "exposed to, or whose named source (not self) never told it; 0 with none asserting",
        internal=False,
        fn=probe_hallucination,
        reads=("exposures", "probes", "truth", "utterances"),
    )
)
