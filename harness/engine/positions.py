"""Where the world has each agent: at a place, or on the way with an act to carry out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Position:
    location: str | None
    destination: str | None = None
    arrive_at: int | None = None
    intent: dict[str, Any] | None = None  # the act to carry out on arrival
    blocked: bool = False  # the way was impassable: the act fails on arrival
    passed: tuple[str, ...] = ()  # places on the way, whose signs are seen on the way
