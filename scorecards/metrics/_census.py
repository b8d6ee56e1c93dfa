"""Knowers and audiences: who should know a tracked proposition and who does at the census.

Shared by `reach` and `provenance` so that both count the same knowers (DESIGN §5: a knower
of a proposition is an agent whose last census answer gives the true value; the origin agent
is never counted).
"""

from __future__ import annotations

import pandas as pd

from ._base import Episode, derived
from ._tables import ANSWERED, TRUTH, flag, table


def tracked(episode: Episode) -> pd.DataFrame:
    """The tracked propositions (one row each): proposition, value, modality (at origin),
    origin, private, audience."""
    return derived(episode, "tracked", _tracked)


def _tracked(episode: Episode) -> pd.DataFrame:
    truth = table(episode, "truth", TRUTH)[list(TRUTH)]
    if truth["proposition"].duplicated().any():
        raise ValueError("the truth table holds a proposition twice; expected one row each")
    return truth


def audience(truth: pd.DataFrame) -> pd.DataFrame:
    """(proposition, agent) pairs of the intended audience, origin excluded, each pair once."""
    pairs = truth[["proposition", "origin", "audience"]].explode("audience")
    pairs = pairs[pairs["audience"].notna() & pairs["audience"].ne(pairs["origin"])]
    pairs = pairs.rename(columns={"audience": "agent"})[["proposition", "agent"]]
    return pairs.drop_duplicates(ignore_index=True)


def last_census(episode: Episode) -> pd.DataFrame:
    """Each agent's last census answer per proposition.

    Columns: agent, proposition, tick, answer_value, answer_source, answer_modality,
    answer_origin, answer_replaced_by.
    Ties at one (tick, event_id) are broken on the answer's own columns, so the choice never
    depends on row order.
    """
    return derived(episode, "last_census", _last_census)


def _last_census(episode: Episode) -> pd.DataFrame:
    probes = table(episode, "probes", ANSWERED)
    census = probes[flag(probes["kind"].eq("census"))]
    keys = ["agent", "proposition"]
    columns = [
        "answer_value",
        "answer_source",
        "answer_modality",
        "answer_origin",
        "answer_replaced_by",
    ]
    census = census[census["tick"].eq(census.groupby(keys, sort=False)["tick"].transform("max"))]
    if census.duplicated(keys).any():  # several answers at the last tick: a fixed choice
        order = [*keys, "tick", "event_id", *columns]
        census = census.sort_values(order, na_position="first", kind="mergesort")
        census = census.drop_duplicates(keys, keep="last")
    return census[[*keys, "tick", *columns]]


def knowers(truth: pd.DataFrame, census: pd.DataFrame) -> pd.DataFrame:
    """Agents other than the origin whose last census answer is the true value.

    Columns: agent, proposition, tick (of the answer), answer_source, answer_modality,
    answer_origin, origin, modality (the truth's).
    """
    truth = truth[["proposition", "value", "origin", "modality"]]
    joined = census.merge(truth, on="proposition")
    known = flag(joined["answer_value"].eq(joined["value"]))
    known &= ~flag(joined["agent"].eq(joined["origin"]))
    columns = [
        "agent",
        "proposition",
        "tick",
        "answer_source",
        "answer_modality",
        "answer_origin",
        "origin",
        "modality",
    ]
    return joined.loc[known, columns].reset_index(drop=True)


def census_knowers(episode: Episode) -> pd.DataFrame:
    """`knowers` of every tracked proposition at the last census (see `knowers`)."""
    return derived(episode, "knowers", lambda e: knowers(tracked(e), last_census(e)))
