"""The recorder: trace rows as the tick loop produces them, turned into tables at the end."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from .schema import TABLE_NAMES, to_table


class Recorder:
    """Collects trace rows; every row carries scenario, seed, tick and the causing event id."""

    def __init__(self, scenario: str, seed: int, start: int, tick_minutes: int) -> None:
        self.scenario, self.seed = scenario, seed
        self.start, self.tick_minutes = start, tick_minutes
        self.rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLE_NAMES}

    def tick(self, minute: int) -> int:
        return (minute - self.start) // self.tick_minutes

    def add(self, table: str, minute: int, event_id: int, **columns: Any) -> None:
        self.rows[table].append(
            {
                "scenario": self.scenario,
                "seed": self.seed,
                "tick": self.tick(minute),
                "event_id": event_id,
                **columns,
            }
        )

    def tables(self) -> dict[str, pa.Table]:
        return {name: to_table(name, rows) for name, rows in self.rows.items()}
