"""What every component of one reference agent shares besides its setup (`AgentSetup`): the
diagnostics it writes, drained by the harness after each call."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.engine.contract import DiagnosticRow

NEVER = 1 << 40  # wake_at when only an observation can give the agent something to do
FIRST_HAND = ("seen", "heard", "read", "did")  # "did": its own action's result


@dataclass
class Diagnostics:
    """Internal trace rows in the order they happen."""

    rows: list[DiagnosticRow] = field(default_factory=list)

    def add(self, row: DiagnosticRow) -> None:
        self.rows.append(row)

    def drain(self) -> list[DiagnosticRow]:
        out, self.rows = self.rows, []
        return out
