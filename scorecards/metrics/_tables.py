"""Access to an episode's trace tables, tolerant of a table the trace does not hold.

Column tuples name what each metric reads (harness/engine/schema.py is the contract); a metric asks
only for the columns it needs, so a table is checked for exactly those.
"""

from __future__ import annotations

import pandas as pd
import pyarrow.compute as pc

from ._base import Episode, EpisodeTables

TRUTH = (
    "proposition",
    "value",
    "modality",
    "origin",
    "private",
    "audience",
    "supersedes",
)
SEVERAL_ORIGINS = ("origins", "origin_modalities", "origin_ticks")  # truth, schema 9
PROBES = ("agent", "kind", "proposition", "answer_value", "answer_modality", "answer_source")
ANSWERED = (*PROBES, "answer_origin", "answer_replaced_by")  # what an answer may also name
EXPOSURES = ("agent", "proposition", "value", "modality", "channel", "from_agent")
ACTIONS = ("agent", "decision_point", "proposition", "in_line")
UTTERANCES = ("speaker", "listener", "proposition", "value", "modality", "scripted")
FIRST_HAND = ("seen", "heard", "read")  # exposure channels that make `self` a fair source
CERTAIN = "certain"


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
    if series.dtype == bool:
        return series
    return series.astype("boolean").fillna(False).astype(bool)


def ticks(series: pd.Series) -> pd.Series:
    """A tick column as plain int64 (traces never hold a null tick)."""
    return series.astype("int64")


def episode_end(episode: Episode) -> int:
    """The episode's last tick: the last census, else the last tick recorded in any table."""
    arrow = episode.arrow("probes") if isinstance(episode, EpisodeTables) else None
    if arrow is not None and "kind" in arrow.column_names:
        census = arrow.filter(pc.equal(arrow.column("kind"), "census")).column("tick")
        if len(census):
            return int(pc.max(census).as_py())
    elif arrow is None and (probes := episode.get("probes")) is not None and "kind" in probes:
        census = probes.loc[flag(probes["kind"].eq("census")), "tick"]
        if not census.empty:
            return int(census.max())
    last = [t for t in (_last_tick(episode, name) for name in episode) if t is not None]
    return max(last, default=0)


def _last_tick(episode: Episode, name: str) -> int | None:
    """The table's last tick (None when it has none), read from Arrow when it is Arrow."""
    arrow = episode.arrow(name) if isinstance(episode, EpisodeTables) else None
    if arrow is not None:
        if "tick" not in arrow.column_names or arrow.num_rows == 0:
            return None
        return int(pc.max(arrow.column("tick")).as_py())
    frame = episode[name]
    return int(frame["tick"].max()) if "tick" in frame.columns and len(frame) else None
