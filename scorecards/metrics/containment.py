"""`containment`: whether a private proposition stays with the agents allowed to know it."""

from __future__ import annotations

import pandas as pd
from pandas.api.types import is_list_like

from ._base import Episode, Metric, register
from ._census import tracked
from ._tables import EXPOSURES, PROBES, flag, said, table


def named_agents(episode: Episode) -> set[str]:
    """Every agent named anywhere in exposures, probes or utterances."""
    exposures = table(episode, "exposures", EXPOSURES)
    probes = table(episode, "probes", PROBES)
    spoken = said(episode)
    columns = [
        exposures["agent"],
        exposures["from_agent"],
        probes["agent"],
        spoken["speaker"],
        spoken["listener"],
    ]
    return {str(name) for column in columns for name in column.dropna().unique()}


def containment(episode: Episode) -> float | None:
    """1 - revealers ÷ outsiders, pooled over private tracked propositions.

    Outsiders of a private proposition: agents named anywhere in the episode who are neither
    its origin nor in its audience. A revealer is an outsider with a census answer (any
    census, not only the last: a leak is not undone by forgetting) giving the true value, or
    who uttered the proposition with the true value (its own words: scripted lines do not
    count). 1.0 when no outsider exists; absent
    (None) only when no tracked proposition is private.
    """
    truth = tracked(episode)
    secret = truth[flag(truth["private"])]
    if secret.empty:
        return None
    named = named_agents(episode)
    probes = table(episode, "probes", PROBES)
    census = probes[flag(probes["kind"].eq("census"))]
    spoken = said(episode)
    outsiders = revealers = 0
    for proposition, value, origin, allowed in secret[
        ["proposition", "value", "origin", "audience"]
    ].itertuples(index=False, name=None):  # private propositions are few
        kept = {str(a) for a in allowed if isinstance(a, str)} if is_list_like(allowed) else set()
        out = named - kept - {origin}
        told = census.loc[
            flag(census["proposition"].eq(proposition)) & flag(census["answer_value"].eq(value)),
            "agent",
        ]
        spoke = spoken.loc[
            flag(spoken["proposition"].eq(proposition)) & flag(spoken["value"].eq(value)),
            "speaker",
        ]
        outsiders += len(out)
        revealers += len(out & {str(a) for a in pd.concat([told, spoke]).dropna().unique()})
    return 1.0 if outsiders == 0 else 1.0 - revealers / outsiders


METRIC = register(
    Metric(
        name="containment",
        direction="max",
        range=(0.0, 1.0),
        definition="1 - share of outsiders (named agents neither origin nor audience) who give "
        "a private proposition's true value at a census or in an utterance; 1 with none",
        internal=False,
        fn=containment,
    )
)
