"""`conservation_violations`: an independent recount of the resource ledger (design §2, §3).

Nothing may appear or disappear except through declared sources and sinks. The harness keeps
the ledger (events rows with a resource) and snapshots inventories (`state` rows with variable
`inventory:<resource>`); this metric recounts one against the other.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate

import numpy as np
import pandas as pd

from ._base import Episode, Metric, register
from ._rows import columns, eq, require
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
    counted = _whole_units(episode)
    if counted is not _FRACTIONS:
        return counted
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


_FRACTIONS = -1.0  # not a count: the units were not all whole numbers
WHOLE = 2.0**40  # far below 2**53: sums of whole units this size are exact in any order


def _whole_units(episode: Episode) -> float | None:
    """The same count over column lists when every delta and count is a whole number (then
    every sum is exact, whatever order pandas adds in); `_FRACTIONS` otherwise."""
    require(episode, "events", MOVES)
    require(episode, "state", STATE)
    fields: tuple[str, ...] = ("resource", "kind", "holder", "delta", "tick", "event_id")
    resources, kinds, holders, deltas, ticks, events = columns(episode, "events", fields)
    moves = [
        (r, k, h, 0.0 if d is None else float(d), int(t), int(e))
        for r, k, h, d, t, e in zip(resources, kinds, holders, deltas, ticks, events)
        if r is not None
    ]
    fields = ("variable", "agent", "value", "tick", "event_id")
    variables, agents, values, ticks, events = columns(episode, "state", fields)
    last: dict[tuple[object, object, int], tuple[int, float]] = {}  # one count a key and tick
    for v, a, x, t, e in zip(variables, agents, values, ticks, events):
        if v is not None and v.startswith(PREFIX):
            key, mark = (v[len(PREFIX) :], a, int(t)), (int(e), 0.0 if x is None else float(x))
            if key not in last or mark >= last[key]:
                last[key] = mark
    if not moves and not last:
        return None
    units = [m[3] for m in moves] + [c for _, c in last.values()]
    if any(not (math.isfinite(u) and u.is_integer() and abs(u) < WHOLE) for u in units):
        return _FRACTIONS
    if any(None in (m[0], m[2]) for m in moves) or any(k[1] is None for k in last):
        return _FRACTIONS  # pandas' grouping drops null keys: leave those to it
    created: dict[int, float] = {}
    for _, kind, _, delta, _, event in moves:
        if eq(kind, "transfer"):
            created[event] = created.get(event, 0.0) + delta
    parts = sorted([abs(x) for x in created.values()])
    parts += [abs(m[3]) for m in moves if m[1] not in DECLARED]
    parts.sort()
    if last:
        parts.append(_whole_recount(moves, last))
    return math.fsum(parts)


def _whole_recount(moves: list, last: dict) -> float:
    first = min(tick for _, _, tick in last)
    base = {(r, h): c for (r, h, t), (_, c) in last.items() if t == first}
    ledger: dict[tuple[object, object], list[tuple[int, float]]] = {}  # moves after the first
    for resource, _, holder, delta, tick, _ in moves:
        if tick > first:
            ledger.setdefault((resource, holder), []).append((tick, delta))
    running: dict[tuple[object, object], tuple[list[int], list[float]]] = {}
    for key, rows in ledger.items():
        rows.sort(key=lambda row: row[0])
        running[key] = ([t for t, _ in rows], list(accumulate(d for _, d in rows)))
    gaps = []
    for (resource, holder, tick), (_, count) in last.items():
        if tick > first:
            at, moved = running.get((resource, holder), ([], []))
            n = bisect_right(at, tick)  # moves with tick in (first, this]
            expected = base.get((resource, holder), 0.0) + (moved[n - 1] if n else 0.0)
            gaps.append(abs(count - expected))
    return math.fsum(sorted(gaps))


METRIC = register(
    Metric(
        name="conservation_violations",
        direction="min",
        range=(0.0, float("inf")),
        definition="resource units created or destroyed outside declared sources and sinks: "
        "unbalanced transfers, undeclared moves, and inventory snapshots off the recount",
        internal=False,
        fn=conservation_violations,
        reads=("events", "state:inventory"),
    )
)
