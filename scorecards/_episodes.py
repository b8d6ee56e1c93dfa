"""Split trace tables holding many episodes into one table set per (scenario, seed)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from .metrics._base import EpisodeTables

EpisodeKey = tuple[str, int]


def split_episodes(traces: Mapping[str, pd.DataFrame]) -> dict[EpisodeKey, EpisodeTables]:
    """Every episode found in any table, sorted by (scenario, seed), with all its tables.

    An episode missing from a table gets that table empty (same columns): the trace recorded
    nothing of that kind, which is not the same as a trace without the table. Each episode
    remembers what its metrics derive in common (`EpisodeTables`).
    """
    episodes: dict[EpisodeKey, dict[str, pd.DataFrame]] = {}
    for name in sorted(traces):
        frame = traces[name]
        missing = {"scenario", "seed"} - set(frame.columns)
        if missing:
            raise KeyError(f"trace table {name!r} lacks the columns {sorted(missing)}")
        for (scenario, seed), part in frame.groupby(["scenario", "seed"], sort=True):
            episodes.setdefault((str(scenario), int(seed)), {})[name] = part
    for tables in episodes.values():
        for name in traces:
            tables.setdefault(name, traces[name].iloc[0:0])
    return {key: EpisodeTables(episodes[key]) for key in sorted(episodes)}
