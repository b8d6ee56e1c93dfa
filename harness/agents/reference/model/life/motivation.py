"""Proactive talk: a daily budget and a recoverable hold (design §2, Conversation).

Wanting to speak is not speaking. `spend` answers "may I speak now?" against a per-day budget
that resets when the day changes. When the agent holds back, `hold` records a substitute action
(a hold always comes with something else to do); its strength fades linearly from 1 to 0 over
20 minutes, and a new hold replaces the old one, so restraint never accumulates into a higher
and higher threshold ("restraint turning into absence").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from scenarios.clock import day_of

HOLD_MINUTES = 20  # a hold fades to nothing in this long
DEFAULT_BUDGET = 12  # talks a day; policy `motivation.talk_budget` defaults to 12 too


@dataclass(frozen=True)
class Hold:
    """Speaking was held back at `minute`; do `substitute` instead while the hold lasts."""

    substitute: str
    minute: int


@dataclass(frozen=True)
class Motivation:
    """The talk budget of day `day` (`spent` of `budget` used) and at most one hold."""

    budget: int = DEFAULT_BUDGET
    day: int = 1
    spent: int = 0
    hold: Hold | None = None

    def __post_init__(self) -> None:
        if self.budget < 0 or not 0 <= self.spent or self.day < 1:
            raise ValueError(f"bad motivation state {self!r}")

    def to_json(self) -> dict[str, Any]:
        hold = None if self.hold is None else [self.hold.substitute, self.hold.minute]
        return {"budget": self.budget, "day": self.day, "spent": self.spent, "hold": hold}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Motivation:
        h = data["hold"]
        return cls(
            int(data["budget"]),
            int(data["day"]),
            int(data["spent"]),
            None if h is None else Hold(str(h[0]), int(h[1])),
        )


def _today(state: Motivation, minute: int) -> Motivation:
    day = day_of(minute)
    if day < state.day:
        raise ValueError(f"time runs forward only: day {state.day} → {day}")
    return state if day == state.day else replace(state, day=day, spent=0)


def remaining(state: Motivation, minute: int) -> int:
    """Talks left today (a new day starts with the full budget)."""
    today = _today(state, minute)
    return max(0, today.budget - today.spent)


def spend(state: Motivation, minute: int) -> tuple[Motivation, bool]:
    """Try to speak at `minute`: (new state, allowed). Allowed uses one unit of today's budget
    and releases any hold (the urge was acted on); refused changes only the day rollover."""
    today = _today(state, minute)
    if today.spent >= today.budget:
        return today, False
    # replace(today, spent=today.spent + 1, hold=None), made directly: a few times a chat
    return Motivation(today.budget, today.day, today.spent + 1, None), True


def hold(state: Motivation, substitute: str, minute: int) -> Motivation:
    """Hold back from speaking at `minute` and do `substitute` instead. Replaces any earlier
    hold: holds never add up."""
    if not substitute:
        raise ValueError("a hold needs a substitute action")
    today = _today(state, minute)  # replace(today, hold=...), made directly
    return Motivation(today.budget, today.day, today.spent, Hold(substitute, minute))


def hold_strength(state: Motivation, minute: int) -> float:
    """1 when the hold starts, falling linearly to exactly 0 after HOLD_MINUTES; 0 if none."""
    if state.hold is None:
        return 0.0
    elapsed = max(0, minute - state.hold.minute)
    return max(0.0, 1.0 - elapsed / HOLD_MINUTES)


def substitute(state: Motivation, minute: int) -> str | None:
    """The substitute action while a hold still has strength, else None."""
    return state.hold.substitute if state.hold and hold_strength(state, minute) > 0 else None
