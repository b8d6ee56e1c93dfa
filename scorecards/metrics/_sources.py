"""Acceptable sources: whom an agent may fairly name for what it says about a proposition.

Shared by `provenance`, `probe_recall` and `probe_hallucination` so that all three judge a
named source by the same rule: the true origin; an agent who told this agent the proposition
(per exposures, any value) at or before the answer; `self` after a first-hand exposure.
"""

from __future__ import annotations

import pandas as pd

from ._base import Episode, derived
from ._tables import EXPOSURES, FIRST_HAND, flag, table, ticks


def vouchers(episode: Episode) -> pd.DataFrame:
    """Sources an agent may fairly name per proposition, from the earliest tick it could.

    Columns: agent, proposition, answer_source, since. An informant who told the agent
    (channel `told`) vouches by name; a first-hand exposure (seen, heard, read) makes `self`
    fair.
    """
    return derived(episode, "vouchers", _vouchers)


def _vouchers(episode: Episode) -> pd.DataFrame:
    exposures = table(episode, "exposures", EXPOSURES)
    told = flag(exposures["channel"].eq("told"))
    first_hand = flag(exposures["channel"].isin(FIRST_HAND))
    source = exposures["from_agent"].where(told, "self").where(told | first_hand)
    vouched = pd.DataFrame(
        {
            "agent": exposures["agent"],
            "proposition": exposures["proposition"],
            "answer_source": source,
            "since": ticks(exposures["tick"]),
        }
    )
    vouched = vouched[vouched["answer_source"].notna()]
    keys = ["agent", "proposition", "answer_source"]
    return vouched.groupby(keys, as_index=False, sort=False)["since"].min()


def acceptable(answers: pd.DataFrame, episode: Episode) -> pd.Series:
    """Per answer row: does it name an acceptable source at the time of the answer?

    `answers` needs agent, proposition, tick, answer_source and origin (the truth's); the
    result is aligned with its index.
    """
    keyed = answers[["agent", "proposition", "answer_source", "tick"]].reset_index(names="row")
    vouched = keyed.merge(vouchers(episode), on=["agent", "proposition", "answer_source"])
    in_time = vouched.loc[vouched["since"] <= ticks(vouched["tick"]), "row"]
    ok = flag(answers["answer_source"].eq(answers["origin"]))
    return ok | pd.Series(answers.index.isin(in_time.to_numpy()), index=answers.index)
