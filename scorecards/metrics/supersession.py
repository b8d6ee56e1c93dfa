"""`supersession`: whether agents who heard of a replacement can say what replaced what."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import answer_rows, first_value_exposure_rows, tracked_rows
from ._rows import eq


def supersession(episode: Episode) -> float | None:
    """Answers about a replaced proposition that name its replacement, and answers about a
    value that changed that give the current value ÷ such answers by agents exposed to the
    replacement (its true value, or the current value) before.

    A tracked proposition Q replaces P when Q's truth names P in `supersedes`. Probe and census
    answers about P count (the origin's own excluded) when their agent was exposed to Q with
    Q's true value at or before the answer's tick; an answer names the replacement when its
    `answer_replaced_by` is Q. Of a truth with successive values, probe and census answers
    count when their agent was exposed to a value that held before the current one and to the
    current one by then: the answer moved on when it gives the current value. Absent (None)
    when no such answer exists.
    """
    truths = tracked_rows(episode)
    later = [t for t in truths if t.supersedes is not None]
    changing = {t.proposition for t in truths if t.changes}
    if not later and not changing:
        return None
    exposed = first_value_exposure_rows(episode)

    def seen(agent: object, proposition: object, value: object, tick: int) -> bool:
        first = exposed.get((agent, proposition, value))
        return first is not None and first <= tick

    named = []
    for a in answer_rows(episode, ("probe", "census")):
        for newer in later:
            if a.proposition != newer.supersedes:  # merged on the replaced proposition
                continue
            if seen(a.agent, newer.proposition, newer.value_at(a.tick), a.tick):
                named.append(eq(a.answer_replaced_by, newer.proposition))
        if a.proposition in changing:
            t, now = a.truth, a.truth.value_at(a.tick)
            knew_older = any(
                seen(a.agent, t.proposition, v, a.tick) for v in t.older_values(a.tick)
            )
            if knew_older and seen(a.agent, t.proposition, now, a.tick):
                named.append(eq(a.answer_value, now))
    if not named:
        return None
    return float(sum(named)) / len(named)


METRIC = register(
    Metric(
        name="supersession",
        direction="max",
        range=(0.0, 1.0),
        definition="share of probe/census answers about a replaced proposition, by agents "
        "exposed to its replacement, that name the replacement, and about a value that "
        "changed, by agents exposed to an older and the current value, that give the current "
        "one; absent with none",
        internal=False,
        fn=supersession,
        reads=("exposures", "probes", "truth"),
    )
)
