"""Replanning delays: from an agent's first exposure to a deciding fact to its first in-line
decision after it. Shared by `time_to_replan` and `time_to_replan_group`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._base import Episode, derived
from ._exposures import first_exposure
from ._tables import ACTIONS, episode_end, flag, table, ticks


def replan_delays(episode: Episode) -> pd.DataFrame:
    """One row per (agent, deciding proposition) where the agent answered a decision point on
    that proposition and was exposed to it: agent, proposition, delay (ticks).

    delay = first in-line decision-point action strictly after the first exposure - that
    exposure; censored at the episode end (the last census) when no such action follows.
    """
    return derived(episode, "replan_delays", _delays)


def _delays(episode: Episode) -> pd.DataFrame:
    actions = table(episode, "actions", ACTIONS)
    decided = actions.loc[
        actions["decision_point"].notna(), ["agent", "proposition", "tick", "in_line"]
    ]
    decided = decided.assign(tick=ticks(decided["tick"]))
    first = first_exposure(episode).rename(columns={"tick": "exposed"})
    keys = ["agent", "proposition"]
    units = decided[keys].drop_duplicates().merge(first, on=keys)
    if units.empty:
        return pd.DataFrame({"agent": [], "proposition": [], "delay": []})
    acted = decided[flag(decided["in_line"])].merge(first, on=keys)
    acted = acted[acted["tick"] > acted["exposed"]]
    acted = acted.groupby(keys, as_index=False, sort=False)["tick"].min()
    units = units.merge(acted, on=keys, how="left")
    end = float(episode_end(episode))
    done = units["tick"].astype("Float64").fillna(end).to_numpy(float)
    delay = np.maximum(done - units["exposed"].to_numpy(float), 0.0)
    return units[keys].assign(delay=delay)
