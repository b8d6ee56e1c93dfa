"""What the character has in hand between turns, as typed records: the promises it keeps (its
agenda), what it will say at its next turn with each partner (its outbox), its unprompted
messages and their fate (its ledger, which lessons are drawn from) and the practice under way.
Each goes to plain JSON and back for the agent's state."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Self


@dataclass(frozen=True)
class Plain:
    """A flat record of plain values, to JSON (a mapping by field) and back."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        return cls(**data)


@dataclass(frozen=True)
class Promise(Plain):
    """A reminder it promised: when it falls due, to whom, for which request."""

    due: int
    speaker: str
    request_id: str


@dataclass(frozen=True)
class Message(Plain):
    """A line it will say at its next turn with a partner: about a proposition (None: a chat),
    the value it gives, its words, and the minute it offers, if it offers one."""

    proposition: str | None
    value: str | None
    text: str
    offered: int | None = None


@dataclass(frozen=True)
class Sent(Plain):
    """One of its unprompted messages: the tick and minute it went out, and whether it was
    answered (None while that is not known yet)."""

    tick: int
    minute: int
    answered: bool | None = None


@dataclass(frozen=True)
class Busy(Plain):
    """The practice under way (None: none) and the minute it ends."""

    practice: str | None = None
    until: int = 0
