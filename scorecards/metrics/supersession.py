"""`supersession`: whether agents who heard of a replacement can say what replaced what."""

from __future__ import annotations

from ._answers import answers
from ._base import Episode, Metric, register
from ._census import tracked
from ._exposures import first_value_exposure
from ._tables import flag


def supersession(episode: Episode) -> float | None:
    """Answers about a replaced proposition that name its replacement ÷ answers about a
    replaced proposition by agents exposed to the replacement (its true value) before.

    A tracked proposition Q replaces P when Q's truth names P in `supersedes`. Probe and census
    answers about P count (the origin's own excluded) when their agent was exposed to Q with
    Q's true value at or before the answer's tick; an answer names the replacement when its
    `answer_replaced_by` is Q. Absent (None) when no such answer exists.
    """
    truth = tracked(episode)
    if "supersedes" not in truth.columns:
        return None
    later = truth.loc[truth["supersedes"].notna(), ["proposition", "supersedes", "value"]]
    if later.empty:
        return None
    later = later.rename(
        columns={"proposition": "newer", "supersedes": "proposition", "value": "newer_value"}
    )
    asked = answers(episode, ("probe", "census")).merge(later, on="proposition")
    exposed = first_value_exposure(episode).rename(
        columns={"proposition": "newer", "tick": "exposed", "value": "newer_value"}
    )
    asked = asked.merge(exposed, on=["agent", "newer", "newer_value"])
    asked = asked[asked["exposed"] <= asked["tick"]]
    if asked.empty:
        return None
    named = flag(asked["answer_replaced_by"].eq(asked["newer"]))
    return float(named.sum()) / len(asked)


METRIC = register(
    Metric(
        name="supersession",
        direction="max",
        range=(0.0, 1.0),
        definition="share of probe/census answers about a replaced proposition, by agents "
        "exposed to its replacement, that name the replacement; absent with none",
        internal=False,
        fn=supersession,
    )
)
