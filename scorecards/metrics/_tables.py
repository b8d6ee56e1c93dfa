"""Access to an episode's trace tables, tolerant of a table the trace does not hold."""

from __future__ import annotations

import pandas as pd

from ._base import Episode

TRUTH = ("proposition", "value", "origin", "audience")
PROBES = ("agent", "kind", "proposition", "answer_value", "answer_source")
EXPOSURES = ("agent", "proposition", "channel", "from_agent")
ACTIONS = ("agent", "decision_point", "proposition", "in_line")
FIRST_HAND = ("seen", "heard", "read")  # exposure channels that make `self` a fair source


def table(episode: Episode, name: str, columns: tuple[str, ...]) -> pd.DataFrame:
    """The episode's `name` table, or an empty one when the trace has none (nothing happened).

    A table that exists but lacks a needed column is a broken trace and raises.
    """
    needed = ("tick", "event_id", *columns)
    frame = episode.get(name)
    if frame is None:
        return pd.DataFrame(
            {c: pd.Series(dtype="int64" if c in ("tick", "event_id") else object) for c in needed}
        )
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise KeyError(f"trace table {name!r} lacks the columns {missing}")
    return frame


def flag(series: pd.Series) -> pd.Series:
    """A nullable boolean column as plain bools, null counting as False."""
    return series.astype("boolean").fillna(False).astype(bool)
