"""Acceptable sources: whom an agent may fairly name for what it says about a proposition.

Shared by `provenance`, `provenance_origin`, `probe_recall` and `probe_hallucination` so that
all judge a named source by the same rules. An informant is fairly named when it told this
agent the proposition (per exposures, any value) at or before the answer, and `self` after a
first-hand exposure; an origin is fairly named when it is the true origin, or `self` after a
first-hand exposure. `acceptable` takes either: what a named source may be at all.
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


def vouched(answers: pd.DataFrame, episode: Episode, column: str = "answer_source") -> pd.Series:
    """Per answer row: does `column` name a real informant by then, or `self` after a
    first-hand exposure? `answers` needs agent, proposition, tick and the column; the result
    is aligned with its index."""
    keyed = answers[["agent", "proposition", column, "tick"]].reset_index(names="row")
    keyed = keyed.rename(columns={column: "answer_source"})
    found = keyed.merge(vouchers(episode), on=["agent", "proposition", "answer_source"])
    in_time = found.loc[found["since"] <= ticks(found["tick"]), "row"]
    return pd.Series(answers.index.isin(in_time.to_numpy()), index=answers.index)


def informant_named(answers: pd.DataFrame, episode: Episode) -> pd.Series:
    """Per answer row: does its source name an agent who really told it by then, or `self`
    after a first-hand exposure?"""
    return vouched(answers, episode)


def origin_named(answers: pd.DataFrame, episode: Episode) -> pd.Series:
    """Per answer row: does its origin name the true origin, or `self` after a first-hand
    exposure? `answers` needs answer_origin and origin (the truth's) besides the keys."""
    true = flag(answers["answer_origin"].eq(answers["origin"]))
    self_ = flag(answers["answer_origin"].eq("self"))
    return true | (self_ & vouched(answers, episode, "answer_origin"))


def acceptable(answers: pd.DataFrame, episode: Episode) -> pd.Series:
    """Per answer row: does its source name anyone it may fairly name at the time of the
    answer — the true origin, a real informant, or `self` after a first-hand exposure?

    `answers` needs agent, proposition, tick, answer_source and origin (the truth's); the
    result is aligned with its index.
    """
    ok = flag(answers["answer_source"].eq(answers["origin"]))
    return ok | vouched(answers, episode)
