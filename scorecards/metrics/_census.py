"""Knowers and audiences: who should know a tracked proposition and who does at the census.

Shared by `reach` and `provenance` so that both count the same knowers (DESIGN §5: a knower
of a proposition is an agent whose last census answer gives the true value; the origin agent
is never counted).
"""

from __future__ import annotations

import pandas as pd

from ._base import Episode
from ._tables import PROBES, TRUTH, flag, table


def tracked(episode: Episode) -> pd.DataFrame:
    """The tracked propositions: proposition, value, origin, audience (one row each)."""
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
    """Each agent's last census answer per proposition: agent, proposition, tick, answer, source.

    Ties at one (tick, event_id) are broken on the answer's own columns, so the choice never
    depends on row order.
    """
    probes = table(episode, "probes", PROBES)
    census = probes[probes["kind"].eq("census")]
    order = ["agent", "proposition", "tick", "event_id", "answer_value", "answer_source"]
    census = census.sort_values(order, na_position="first", kind="mergesort")
    census = census.drop_duplicates(["agent", "proposition"], keep="last")
    return census[["agent", "proposition", "tick", "answer_value", "answer_source"]]


def knowers(truth: pd.DataFrame, census: pd.DataFrame) -> pd.DataFrame:
    """Agents other than the origin whose last census answer is the true value.

    Columns: agent, proposition, tick (of the answer), answer_source, origin.
    """
    joined = census.merge(truth[["proposition", "value", "origin"]], on="proposition")
    known = flag(joined["answer_value"].eq(joined["value"]))
    known &= ~flag(joined["agent"].eq(joined["origin"]))
    columns = ["agent", "proposition", "tick", "answer_source", "origin"]
    return joined.loc[known, columns].reset_index(drop=True)
