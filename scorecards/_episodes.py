"""Split trace tables holding many episodes into one table set per (scenario, seed)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .metrics._base import EpisodeTables

EpisodeKey = tuple[str, int]


def split_episodes(
    traces: Mapping[str, pd.DataFrame] | Mapping[str, pa.Table],
) -> dict[EpisodeKey, EpisodeTables]:
    """Every episode found in any table, sorted by (scenario, seed), with all its tables.

    An episode missing from a table gets that table empty (same columns): the trace recorded
    nothing of that kind, which is not the same as a trace without the table. Each episode
    remembers what its metrics derive in common (`EpisodeTables`). Arrow tables stay Arrow
    (each converted to pandas only if a metric reads it).
    """
    episodes: dict[EpisodeKey, dict[str, pd.DataFrame | pa.Table]] = {}
    for name in sorted(traces):
        frame = traces[name]
        columns = frame.column_names if isinstance(frame, pa.Table) else frame.columns
        missing = {"scenario", "seed"} - set(columns)
        if missing:
            raise KeyError(f"trace table {name!r} lacks the columns {sorted(missing)}")
        parts = _arrow_parts(frame) if isinstance(frame, pa.Table) else _frame_parts(frame)
        for key, part in parts:
            episodes.setdefault(key, {})[name] = part
    for tables in episodes.values():
        for name in traces:
            tables.setdefault(name, _empty(traces[name]))
    return {key: EpisodeTables(episodes[key]) for key in sorted(episodes)}


def _frame_parts(frame: pd.DataFrame) -> list[tuple[EpisodeKey, pd.DataFrame]]:
    return [
        ((str(scenario), int(seed)), part)
        for (scenario, seed), part in frame.groupby(["scenario", "seed"], sort=True)
    ]


def _arrow_parts(table: pa.Table) -> list[tuple[EpisodeKey, pa.Table]]:
    """The table's rows per (scenario, seed), keys sorted; rows of a null key are dropped
    (as pandas' groupby drops them)."""
    if table.num_rows == 0:
        return []
    scenario, seed = table.column("scenario"), table.column("seed")
    if scenario.null_count == 0 and seed.null_count == 0:
        names, seeds = pc.min_max(scenario), pc.min_max(seed)
        if names["min"] == names["max"] and seeds["min"] == seeds["max"]:  # one episode
            return [((str(names["min"].as_py()), int(seeds["min"].as_py())), table)]
    keys = table.select(["scenario", "seed"]).group_by(["scenario", "seed"]).aggregate([])
    found = sorted(
        (str(sc), int(sd))
        for sc, sd in zip(keys.column("scenario").to_pylist(), keys.column("seed").to_pylist())
        if sc is not None and sd is not None
    )
    return [
        (key, table.filter(pc.and_(pc.equal(scenario, key[0]), pc.equal(seed, key[1]))))
        for key in found
    ]


def _empty(frame: pd.DataFrame | pa.Table) -> pd.DataFrame | pa.Table:
    return frame.slice(0, 0) if isinstance(frame, pa.Table) else frame.iloc[0:0]
