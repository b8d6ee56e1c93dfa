"""`provenance`: whether knowers can name a source they really had for what they know."""

from __future__ import annotations

import pandas as pd

from ._base import Episode, Metric, register
from ._census import knowers, last_census, tracked
from ._tables import EXPOSURES, FIRST_HAND, flag, table


def _vouchers(episode: Episode) -> pd.DataFrame:
    """Sources an agent may fairly name per proposition, from the earliest tick it could.

    Columns: agent, proposition, answer_source, since. An informant who told the agent
    (channel `told`) vouches by name; a first-hand exposure (seen, heard, read) makes `self`
    fair.
    """
    exposures = table(episode, "exposures", EXPOSURES)
    told = flag(exposures["channel"].eq("told"))
    first_hand = exposures["channel"].isin(FIRST_HAND)
    source = exposures["from_agent"].where(told, "self").where(told | first_hand)
    vouched = exposures.assign(answer_source=source, since=exposures["tick"])
    vouched = vouched[vouched["answer_source"].notna()]
    keys = ["agent", "proposition", "answer_source"]
    return vouched.groupby(keys, as_index=False)["since"].min()


def provenance(episode: Episode) -> float | None:
    """Knowers whose census answer names an acceptable source ÷ knowers.

    Acceptable: the true origin; an agent who told this agent the proposition (per exposures)
    at or before the census answer; `self` after a first-hand exposure. Knowers are every
    non-origin agent with the true value, in the audience or not. With no knowers the value is
    0.0: a village where nobody knows names no sources. Absent (None) only when the episode
    tracks no proposition.
    """
    truth = tracked(episode)
    if truth.empty:
        return None
    known = knowers(truth, last_census(episode))
    if known.empty:
        return 0.0
    known = known.reset_index(names="knower")
    vouched = known.merge(_vouchers(episode), on=["agent", "proposition", "answer_source"])
    in_time = vouched.loc[vouched["since"] <= vouched["tick"], "knower"]
    acceptable = flag(known["answer_source"].eq(known["origin"]))
    acceptable |= known["knower"].isin(in_time)
    return float(acceptable.sum()) / len(known)


METRIC = register(
    Metric(
        name="provenance",
        direction="max",
        range=(0.0, 1.0),
        definition="share of knowers (origin excluded) whose census answer names the true "
        "origin, a real informant, or self after a first-hand exposure; 0 with no knowers",
        internal=False,
        fn=provenance,
    )
)
