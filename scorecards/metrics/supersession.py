"""`supersession`: whether agents who heard of a replacement can say what replaced what."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import answer_rows, first_value_exposure_rows, tracked_rows
from ._rows import eq


def supersession(episode: Episode) -> float | None:
    """Answers about a replaced proposition that name its replacement ÷ answers about a
    replaced proposition by agents exposed to the replacement (its true value) before.

    A tracked proposition Q replaces P when Q's truth names P in `supersedes`. Probe and census
    answers about P count (the origin's own excluded) when their agent was exposed to Q with
    Q's true value at or before the answer's tick; an answer names the replacement when its
    `answer_replaced_by` is Q. Absent (None) when no such answer exists.
    """
    later = [t for t in tracked_rows(episode) if t.supersedes is not None]
    if not later:
        return None
    exposed = first_value_exposure_rows(episode)
    named = []
    for a in answer_rows(episode, ("probe", "census")):
        for newer in later:
            if a.proposition != newer.supersedes:  # merged on the replaced proposition
                continue
            seen = exposed.get((a.agent, newer.proposition, newer.value))
            if seen is not None and seen <= a.tick:
                named.append(eq(a.answer_replaced_by, newer.proposition))
    if not named:
        return None
    return float(sum(named)) / len(named)


METRIC = register(
    Metric(
        name="supersession",
        direction="max",
        range=(0.0, 1.0),
        definition="share of probe/census answers about a replaced proposition, by agents "
        "exposed to its replacement, that name the replacement; absent with none",
        internal=False,
        fn=supersession,
        reads=("exposures", "probes", "truth"),
    )
)
