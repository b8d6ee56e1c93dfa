"""The event ledger: each resource a world move creates, hands over or uses up, as a row of
the `events` table (the conservation recount reads them against the inventories)."""

from __future__ import annotations

from collections.abc import Iterable

from .recorder import Recorder
from .world import Move


def record_moves(
    rec: Recorder, moves: Iterable[Move], now: int, eid: int, place: str | None, agent: str | None
) -> None:
    for m in moves:
        rec.add(
            "events",
            now,
            eid,
            kind=m.kind,
            place=place,
            agent=agent,
            detail=None,
            resource=m.resource,
            holder=m.holder,
            delta=m.delta,
        )
