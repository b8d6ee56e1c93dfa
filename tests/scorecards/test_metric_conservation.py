"""`conservation_violations`: an independent recount; planted faults fire, clean twins don't."""

from __future__ import annotations

from typing import Any

from scorecard_traces import frame

from scorecards.metrics.conservation_violations import conservation_violations


def _move(
    kind: str, event_id: int, holder: str, delta: int, *, tick: int, resource: str = "meal"
) -> dict[str, Any]:
    return {
        "kind": kind,
        "resource": resource,
        "holder": holder,
        "delta": delta,
        "tick": tick,
        "event_id": event_id,
    }


def _count(holder: str, count: float, *, tick: int, resource: str = "meal") -> dict[str, Any]:
    return {"agent": holder, "variable": f"inventory:{resource}", "value": count, "tick": tick}


CLEAN_MOVES = [
    _move("source", 1, "supply_port", 3, tick=6),  # the 06:00 drop: declared
    _move("transfer", 2, "supply_port", -3, tick=7),
    _move("transfer", 2, "food_cabinet", 3, tick=7),
    _move("transfer", 3, "food_cabinet", -1, tick=12),  # take a meal
    _move("transfer", 3, "ana", 1, tick=12),
    _move("sink", 4, "ana", -1, tick=13),  # eaten: declared
]
CLEAN_COUNTS = [
    _count("food_cabinet", 6, tick=0),
    _count("ana", 0, tick=0),
    _count("food_cabinet", 9, tick=10),  # 6 + 3
    _count("supply_port", 0, tick=10),  # absent at the first snapshot: from 0
    _count("food_cabinet", 8, tick=20),
    _count("ana", 0, tick=20),  # took one, ate it
    _count("ana", 0.0, tick=20),  # a duplicate row for one tick counts once
    {"agent": "ana", "variable": "energy", "value": 0.7, "tick": 20},  # not an inventory
]


def _episode(moves: list[dict], counts: list[dict]) -> dict:
    return {"events": frame("events", moves), "state": frame("state", counts)}


def test_a_clean_ledger_recounts_to_zero() -> None:
    assert conservation_violations(_episode(CLEAN_MOVES, CLEAN_COUNTS)) == 0.0


def test_a_transfer_that_creates_a_unit_fires() -> None:
    moves = [
        *CLEAN_MOVES[:3],
        _move("transfer", 3, "food_cabinet", -1, tick=12),
        _move("transfer", 3, "ana", 2, tick=12),
        CLEAN_MOVES[5],
    ]
    counts = [c for c in CLEAN_COUNTS if c["tick"] < 20]  # snapshots agree up to tick 10
    assert conservation_violations(_episode(moves, counts)) == 1.0


def test_a_snapshot_that_disagrees_with_the_recount_fires() -> None:
    counts = [*CLEAN_COUNTS[:4], _count("food_cabinet", 7, tick=20), _count("ana", 0, tick=20)]
    assert conservation_violations(_episode(CLEAN_MOVES, counts)) == 1.0
    counts = [*CLEAN_COUNTS[:4], _count("food_cabinet", 8, tick=20), _count("ana", 2, tick=20)]
    assert conservation_violations(_episode(CLEAN_MOVES, counts)) == 2.0


def test_a_move_of_no_declared_kind_fires() -> None:
    moves = [*CLEAN_MOVES, _move("spawn", 9, "ana", 1, tick=30)]
    assert conservation_violations(_episode(moves, [])) == 1.0
    assert conservation_violations(_episode(CLEAN_MOVES, [])) == 0.0


def test_resources_are_recounted_separately() -> None:
    moves = [
        *CLEAN_MOVES,
        _move("transfer", 5, "art_cabinet", -1, tick=15, resource="paper"),
        _move("transfer", 5, "ana", 1, tick=15, resource="paper"),
    ]
    counts = [
        *CLEAN_COUNTS,
        _count("art_cabinet", 10, tick=0, resource="paper"),
        _count("art_cabinet", 9, tick=20, resource="paper"),
        _count("ana", 1, tick=20, resource="paper"),
    ]
    assert conservation_violations(_episode(moves, counts)) == 0.0


def test_absent_without_resources_or_inventories() -> None:
    plans = frame("events", [{"kind": "plan", "detail": "{}"}])
    moods = frame("state", [{"agent": "ana", "variable": "energy", "value": 1.0}])
    assert conservation_violations({"events": plans, "state": moods}) is None
    assert conservation_violations({}) is None
