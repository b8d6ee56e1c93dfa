"""`probe_hallucination`: answers asserting a value or a source the agent never had."""

from __future__ import annotations

import pandas as pd

from ._answers import answers
from ._base import Episode, Metric, register
from ._exposures import first_value_exposure
from ._sources import acceptable
from ._tables import flag


def probe_hallucination(episode: Episode) -> float | None:
    """Asserting answers (value not null) that are unfounded ÷ asserting answers.

    Probe and census answers about tracked propositions count, the origin's own excluded.
    Unfounded: no exposure of the agent to that proposition with that value at or before the
    answer's tick, or a named source (not null, not `self`) that is neither the true origin
    nor an agent who told it the proposition by then (per exposures). No asserting answer
    gives 0.0; absent (None) only when the episode asks nothing about a tracked proposition.
    """
    asked = answers(episode, ("probe", "census"))
    if asked.empty:
        return None
    asked = asked[asked["answer_value"].notna()].reset_index(drop=True)
    if asked.empty:
        return 0.0
    first = first_value_exposure(episode)
    first = first.rename(columns={"tick": "exposed", "value": "answer_value"})
    seen = asked[["agent", "proposition", "answer_value", "tick"]].reset_index(names="row")
    seen = seen.merge(first, on=["agent", "proposition", "answer_value"])
    founded = asked.index.isin(seen.loc[seen["exposed"] <= seen["tick"], "row"].to_numpy())
    named = flag(asked["answer_source"].notna() & asked["answer_source"].ne("self"))
    unfounded = ~pd.Series(founded, index=asked.index) | (named & ~acceptable(asked, episode))
    return float(unfounded.sum()) / len(asked)


METRIC = register(
    Metric(
        name="probe_hallucination",
        direction="min",
        range=(0.0, 1.0),
        definition="share of asserting probe/census answers whose value the agent was never "
        "exposed to, or whose named source (not self) never told it; 0 with none asserting",
        internal=False,
        fn=probe_hallucination,
    )
)
