"""`supersession`: whether agents who heard of a replacement can say what replaced what, and
name no replacement they never heard of."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import answer_rows, first_value_exposure_rows
from ._justified import justified
from ._rows import eq
from ._truth import tracked_rows


def supersession(episode: Episode) -> float | None:
    """Answers that say what replaced what, as the agent heard it ÷ answers about a replaced
    proposition or a changed value by agents who heard of the replacement, and answers
    naming a replacement.

    A tracked proposition Q replaces (or retracts) P when Q's truth names P in `supersedes`.
    Probe and census answers about P (the origin's own excluded) by an agent that heard Q's
    true value by then must have moved on (`_justified`): name Q as `replaced_by`, or say P
    no longer holds ("false"). Of a truth with successive values, answers by agents that
    heard an older and the current value must give the current one. Precision, not
    presence: an answer that names a replacement the agent never heard of, or the wrong
    one, is a miss wherever it is given. Absent (None) when no truth is replaced or changes,
    or no answer counts.
    """
    truths = tracked_rows(episode)
    if not any(t.supersedes is not None or t.changes for t in truths):
        return None
    exposed = first_value_exposure_rows(episode)

    def heard(agent: object, proposition: object, value: object, tick: int) -> bool:
        first = exposed.get((agent, proposition, value))
        return first is not None and first <= tick

    named = []
    for a in answer_rows(episode, ("probe", "census")):
        j = justified(episode, a.agent, a.proposition, a.tick)
        if j.replaced_by is not None:
            named.append(j.moved_on(a.answer_value, a.answer_replaced_by))
            continue
        if a.answer_replaced_by is not None:  # a replacement it never heard of
            named.append(False)
            continue
        t, now = a.truth, a.truth.value_at(a.tick)
        older = t.older_values(a.tick) if t.changes else ()
        if heard(a.agent, t.proposition, now, a.tick) and any(
            heard(a.agent, t.proposition, v, a.tick) for v in older
        ):
            named.append(eq(a.answer_value, now))
    if not named:
        return None
    return float(sum(named)) / len(named)


METRIC = register(
    Metric(
        name="supersession",
        direction="max",
        range=(0.0, 1.0),
        definition="share of probe/census answers about a replaced or retracted proposition, "
        "by agents who heard of it, that name the replacement or say it no longer holds, and "
        "about a value that changed, by agents who heard an older and the current value, "
        "that give the current one; a replacement named that the agent never heard of is a "
        "miss; absent with none",
        internal=False,
        fn=supersession,
        reads=("exposures", "probes", "truth"),
    )
)
