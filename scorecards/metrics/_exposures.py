"""When each agent was first exposed to a tracked proposition (any value, or each value).

Shared by the action metrics and `probe_hallucination`, computed once per episode.
"""

from __future__ import annotations

import pandas as pd

from ._base import Episode, derived
from ._tables import EXPOSURES, table, ticks


def first_exposure(episode: Episode) -> pd.DataFrame:
    """Columns agent, proposition, tick: each agent's first exposure to each proposition."""
    return derived(episode, "first_exposure", lambda e: _first(e, ["agent", "proposition"]))


def first_value_exposure(episode: Episode) -> pd.DataFrame:
    """Columns agent, proposition, value, tick: first exposure to each value of each."""
    keys = ["agent", "proposition", "value"]
    return derived(episode, "first_value_exposure", lambda e: _first(e, keys))


def _first(episode: Episode, keys: list[str]) -> pd.DataFrame:
    exposures = table(episode, "exposures", EXPOSURES)
    exposures = exposures[[*keys, "tick"]].assign(tick=ticks(exposures["tick"]))
    return exposures.groupby(keys, as_index=False, sort=False)["tick"].min()
