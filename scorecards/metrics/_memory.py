"""The memory_ops table: internal, so its metrics are absent when an agent exposes none."""

from __future__ import annotations

import pandas as pd

from ._base import Episode
from ._rows import require, rows_where, size
from ._tables import flag, table

MEMORY_OPS = ("agent", "op", "experience_id", "experience_owner", "relevant", "size", "capacity")


def memory_ops(episode: Episode) -> pd.DataFrame | None:
    """The episode's memory operations, or None when there are none at all."""
    ops = table(episode, "memory_ops", MEMORY_OPS)
    return None if ops.empty else ops


def retrievals(ops: pd.DataFrame) -> pd.DataFrame:
    """Retrieve rows that returned an experience (an empty retrieval has a null id)."""
    return ops[flag(ops["op"].eq("retrieve")) & ops["experience_id"].notna()]


def memory_rows(episode: Episode, op: str, fields: tuple[str, ...]) -> list[tuple] | None:
    """The `fields` of the memory operations `op`, or None when there are none at all (as
    `memory_ops`), read as plain values."""
    require(episode, "memory_ops", MEMORY_OPS)
    if not size(episode, "memory_ops"):
        return None
    return rows_where(episode, "memory_ops", "op", op, fields)
