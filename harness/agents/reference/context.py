"""What every component of one reference agent shares: who the agent is and what it was given
(never changed), and the diagnostics it writes (drained by the harness after each call)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scenarios import AgentSpec

NEVER = 1 << 40  # wake_at when only an observation can give the agent something to do
FIRST_HAND = ("seen", "heard", "read")


@dataclass(frozen=True)
class Context:
    name: str
    spec: AgentSpec
    policy: Any
    draws: Any
    start: int
    end: int
    tick_minutes: int


@dataclass
class Diagnostics:
    """Internal trace rows in the order they happen: (table, columns)."""

    rows: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def add(self, table: str, **columns: Any) -> None:
        self.rows.append((table, columns))

    def drain(self) -> list[tuple[str, dict[str, Any]]]:
        out, self.rows = self.rows, []
        return out
