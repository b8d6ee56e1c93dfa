"""Probe and census answers joined with the ground truth they are judged against."""

from __future__ import annotations

import pandas as pd

from ._base import Episode, derived
from ._census import tracked
from ._tables import ANSWERED, flag, table, ticks


def answers(episode: Episode, kinds: tuple[str, ...]) -> pd.DataFrame:
    """Answers of the given probe kinds about tracked propositions, the origin's excluded.

    Columns: agent, proposition, tick, answer_value, answer_modality, answer_source,
    answer_origin, answer_replaced_by, and the truth's value, modality and origin; a fresh
    0..n-1 index.
    """
    return derived(episode, f"answers:{','.join(kinds)}", lambda e: _answers(e, kinds))


def _answers(episode: Episode, kinds: tuple[str, ...]) -> pd.DataFrame:
    probes = table(episode, "probes", ANSWERED)
    asked = probes[flag(probes["kind"].isin(kinds))]
    columns = ["agent", "proposition", "tick", *ANSWERED[3:]]
    truth = tracked(episode)[["proposition", "value", "modality", "origin"]]
    joined = asked[columns].merge(truth, on="proposition")
    joined = joined[~flag(joined["agent"].eq(joined["origin"]))]
    return joined.assign(tick=ticks(joined["tick"])).reset_index(drop=True)
