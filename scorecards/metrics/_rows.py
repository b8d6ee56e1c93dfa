"""Columns of an episode's tables as plain Python lists, for metrics that need no DataFrame.

An ordinary episode holds a few thousand rows: a handful of pandas merges costs more than
the whole metric written over lists, so the most used metrics read columns through here
(once per episode, shared like `derived`). Null is None; `eq` and `ne` follow pandas on
missing values (never equal, always unequal), and grouping skips a null key as pandas'
groupby does, so the values stay exactly those of the DataFrame definitions.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._base import Episode, EpisodeTables


def column(episode: Episode, name: str, field: str) -> list[Any]:
    """Column `field` of table `name` as a list (empty when the trace has no such table).

    A table that exists but lacks the column is a broken trace and raises (as `table`).
    """
    memo = episode.memo if isinstance(episode, EpisodeTables) else None
    key = f"column:{name}:{field}"
    if memo is not None and key in memo:
        return memo[key]
    arrow = episode.arrow(name) if isinstance(episode, EpisodeTables) else None
    if arrow is None and name in episode:
        frame = episode[name]
        if field not in frame.columns:
            raise KeyError(f"trace table {name!r} lacks the columns {[field]}")
        values = pa.array(frame[field], from_pandas=True).to_pylist() if len(frame) else []
    elif arrow is not None:
        if field not in arrow.column_names:
            raise KeyError(f"trace table {name!r} lacks the columns {[field]}")
        values = arrow.column(field).to_pylist()
    else:
        values = []
    if memo is not None:
        memo[key] = values
    return values


def added_column(episode: Episode, name: str, field: str) -> list[Any]:
    """Column `field` of table `name`, added by a later schema version: all null in a trace
    written before it (the columns before it are read as `column` reads them)."""
    arrow = episode.arrow(name) if isinstance(episode, EpisodeTables) else None
    have = arrow.column_names if arrow is not None else None
    if have is None and name in episode:
        have = list(episode[name].columns)
    if have is not None and field not in have:
        return [None] * size(episode, name)
    return column(episode, name, field)


def require(episode: Episode, name: str, fields: Iterable[str]) -> None:
    """Raise as `table` does when table `name` exists but lacks a column (none converted)."""
    arrow = episode.arrow(name) if isinstance(episode, EpisodeTables) else None
    have = arrow.column_names if arrow is not None else None
    if have is None and name in episode:
        have = list(episode[name].columns)
    if have is None:
        return
    missing = [f for f in ("tick", "event_id", *fields) if f not in have]
    if missing:
        raise KeyError(f"trace table {name!r} lacks the columns {missing}")


def size(episode: Episode, name: str) -> int:
    """How many rows table `name` holds (0 when the trace has no such table)."""
    arrow = episode.arrow(name) if isinstance(episode, EpisodeTables) else None
    if arrow is not None:
        return arrow.num_rows
    return len(episode[name]) if name in episode else 0


def columns(episode: Episode, name: str, fields: Iterable[str]) -> list[list[Any]]:
    """Several columns of one table (see `column`)."""
    return [column(episode, name, f) for f in fields]


def eq(a: object, b: object) -> bool:
    """Equal and neither missing (pandas `eq`)."""
    return a is not None and b is not None and a == b


def ne(a: object, b: object) -> bool:
    """Unequal, or either missing (pandas `ne`)."""
    return a is None or b is None or a != b


def mean(values: Iterable[float]) -> float:
    """The mean as pandas and numpy compute it (pairwise summation), so values match."""
    return float(np.mean(np.fromiter(values, dtype=float)))


def hedge(modality: object) -> bool:
    """A stated modality that hedges (`likely`, `rumor`); null states nothing (`uncertain`)."""
    return modality is not None and modality != "certain"


K = TypeVar("K", bound=Hashable)


def earliest(rows: Iterable[tuple[K, int]]) -> dict[K, int]:
    """The least tick per key; keys holding None are skipped (pandas' groupby drops them)."""
    out: dict[K, int] = {}
    for key, tick in rows:
        if isinstance(key, tuple) and None in key:
            continue
        if key not in out or tick < out[key]:
            out[key] = tick
    return out


def rows_where(
    episode: Episode, name: str, field: str, value: object, fields: Iterable[str]
) -> list[tuple[Any, ...]]:
    """The `fields` of table `name`'s rows whose `field` equals `value` (never a null), in
    stored order; an Arrow table is filtered before any value becomes Python (a large table,
    such as memory_ops, of which a metric needs a few rows)."""
    fields = tuple(fields)
    arrow = episode.arrow(name) if isinstance(episode, EpisodeTables) else None
    if arrow is None:
        keys, wanted = column(episode, name, field), columns(episode, name, fields)
        return [tuple(row) for key, *row in zip(keys, *wanted, strict=True) if eq(key, value)]
    missing = [f for f in (field, *fields) if f not in arrow.column_names]
    if missing:
        raise KeyError(f"trace table {name!r} lacks the columns {missing}")
    chosen = arrow.filter(pc.equal(arrow.column(field), value)).select(list(fields))
    return list(zip(*(chosen.column(f).to_pylist() for f in fields), strict=True))
