"""`conservation_violations`: an independent recount of the resource ledger (DESIGN §2, §3).

Nothing may appear or disappear except through declared sources and sinks. The harness keeps
the ledger (events rows with a resource) and snapshots inventories (`state` rows with variable
`inventory:<resource>`); this metric recounts one against the other.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ._base import Episode, Metric, register
from ._tables import flag, table, ticks

MOVES = ("kind", "resource", "holder", "delta")
STATE = ("agent", "variable", "value")
PREFIX = "inventory:"
DECLARED = ("transfer", "source", "sink")
KEYS = ["resource", "holder"]


def _moves(episode: Episode) -> pd.DataFrame:
    events = table(episode, "events", MOVES)
    moves = events[events["resource"].notna()]
    return pd.DataFrame(
        {
            "event_id": moves["event_id"].astype("int64").to_numpy(),
            "tick": ticks(moves["tick"]).to_numpy(),
            "kind": moves["kind"].astype(object).to_numpy(),
            "resource": moves["resource"].astype(object).to_numpy(),
            "holder": moves["holder"].astype(object).to_numpy(),
            "delta": moves["delta"].astype("Float64").fillna(0).to_numpy(float),
        }
    )


def _snapshots(episode: Episode) -> pd.DataFrame:
    state = table(episode, "state", STATE)
    rows = state[flag(state["variable"].str.startswith(PREFIX))]
    snap = pd.DataFrame(
        {
            "tick": ticks(rows["tick"]).to_numpy(),
            "event_id": rows["event_id"].astype("int64").to_numpy(),
            "resource": rows["variable"].str.slice(len(PREFIX)).astype(object).to_numpy(),
            "holder": rows["agent"].astype(object).to_numpy(),
            "count": rows["value"].astype("Float64").fillna(0).to_numpy(float),
        }
    )
    order = [*KEYS, "tick", "event_id", "count"]  # one count per key and tick: the last
    snap = snap.sort_values(order, kind="mergesort")
    return snap.drop_duplicates([*KEYS, "tick"], keep="last")


def _recount(moves: pd.DataFrame, snap: pd.DataFrame) -> float:
    """Sum of |snapshot - (first snapshot + deltas since)| over later snapshots."""
    first = int(snap["tick"].min())
    base = snap[snap["tick"] == first][[*KEYS, "count"]].rename(columns={"count": "base"})
    later = snap[snap["tick"] > first].merge(base, on=KEYS, how="left")
    if later.empty:
        return 0.0
    # one ledger per key: moves, then at each later snapshot tick the snapshot itself; a
    # running sum of deltas read at the snapshot rows is what moved in (first, that tick]
    since = moves.loc[moves["tick"] > first, [*KEYS, "tick", "delta"]].assign(snapshot=0)
    marks = later[[*KEYS, "tick"]].assign(delta=0.0, snapshot=1)
    ledger = pd.concat([since, marks], ignore_index=True).astype({k: object for k in KEYS})
    ledger = ledger.sort_values([*KEYS, "tick", "snapshot"], kind="mergesort")
    ledger["moved"] = ledger.groupby(KEYS, sort=False)["delta"].cumsum()
    read = ledger[ledger["snapshot"] == 1].sort_values([*KEYS, "tick"], kind="mergesort")
    later = later.astype({k: object for k in KEYS}).sort_values([*KEYS, "tick"], kind="mergesort")
    expected = later["base"].fillna(0.0).to_numpy(float) + read["moved"].to_numpy(float)
    gaps = np.abs(later["count"].to_numpy(float) - expected)
    return math.fsum(np.sort(gaps).tolist())


def conservation_violations(episode: Episode) -> float | None:
    """Units created or destroyed outside declared sources and sinks.

    The sum of (a) |net delta| of each event's `transfer` rows, (b) |delta| of resource rows
    of no declared kind (transfer, source, sink), and (c) for each inventory snapshot after
    the first and each (resource, holder) in it, |count - (count at the first snapshot, 0 if
    absent + deltas with tick in (first, this])|. Absent (None) when the episode has neither
    resource moves nor inventory snapshots.
    """
    moves, snap = _moves(episode), _snapshots(episode)
    if moves.empty and snap.empty:
        return None
    transfers = moves[moves["kind"].eq("transfer")]
    created = transfers.groupby("event_id", sort=True)["delta"].sum().abs().to_numpy(float)
    undeclared = moves.loc[~moves["kind"].isin(DECLARED), "delta"].abs().to_numpy(float)
    parts = np.sort(np.concatenate([created, undeclared])).tolist()
    if not snap.empty:
        parts.append(_recount(moves, snap))
    return math.fsum(parts)


METRIC = register(
    Metric(
        name="conservation_violations",
        direction="min",
        range=(0.0, float("inf")),
        definition="resource units created or destroyed outside declared sources and sinks: "
        "unbalanced transfers, undeclared moves, and inventory snapshots off the recount",
        internal=False,
        fn=conservation_violations,
    )
)
