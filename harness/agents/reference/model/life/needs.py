"""Unsatisfiable needs: a need that cannot be met must not drive the same act forever
(design §2, Plans and actions).

A need ("light", "food") has a capped value and methods in order of preference. Each method
has a retry budget (2 failures by default); past it the method is "unreachable for now" for a
back-off that doubles with each lock (capped). While every method is locked the agent asks for
help once, then downgrades the need (lives with less of it), then waits for the first lock to
lapse. Asking again needs new evidence: `new_evidence` lifts every lock and allows one new ask.
All functions are pure and return new trackers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

Kind = Literal["try", "substitute", "ask_for_help", "downgrade", "wait"]
RETRY_BUDGET = 2  # failed tries per method before it is unreachable for now
BACKOFF = 60  # minutes of the first lock; doubles per lock of the same method ...
MAX_BACKOFF = 16 * 60  # ... up to this
DOWNGRADE = 0.5  # a downgraded need presses with half its value


@dataclass(frozen=True)
class Decision:
    """try the preferred method / substitute another / ask for help (with the preferred
    method) / downgrade the need / wait (for the method whose lock lapses first)."""

    kind: Kind
    method: str | None = None


@dataclass(frozen=True)
class NeedTracker:
    need: str
    methods: tuple[str, ...]  # preference order
    value: float = 0.0  # 0..cap
    cap: float = 1.0
    budget: int = RETRY_BUDGET
    backoff: int = BACKOFF
    max_backoff: int = MAX_BACKOFF
    tries: dict[str, int] = field(default_factory=dict)  # failures since the last lock/release
    locks: dict[str, int] = field(default_factory=dict)  # method → unreachable until minute
    lock_count: dict[str, int] = field(default_factory=dict)  # locks since the last release
    asked: bool = False  # asked for help since the last new evidence
    downgraded: bool = False
    last_evidence: int | None = None  # minute of the last new evidence

    def __post_init__(self) -> None:
        if not self.methods or len(set(self.methods)) != len(self.methods):
            raise ValueError(f"need {self.need!r}: methods must be distinct and non-empty")
        if not (
            0.0 <= self.value <= self.cap
            and self.budget >= 1
            and 0 < self.backoff <= self.max_backoff
        ):
            raise ValueError(f"bad need tracker {self!r}")

    def to_json(self) -> dict[str, Any]:
        return {
            "need": self.need,
            "methods": list(self.methods),
            "value": self.value,
            "cap": self.cap,
            "budget": self.budget,
            "backoff": self.backoff,
            "max_backoff": self.max_backoff,
            "tries": dict(sorted(self.tries.items())),
            "locks": dict(sorted(self.locks.items())),
            "lock_count": dict(sorted(self.lock_count.items())),
            "asked": self.asked,
            "downgraded": self.downgraded,
            "last_evidence": self.last_evidence,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NeedTracker:
        return cls(**{**data, "methods": tuple(data["methods"])})


def pressure(tracker: NeedTracker) -> float:
    """How hard the need pushes: its capped value, halved once downgraded."""
    return tracker.value * (DOWNGRADE if tracker.downgraded else 1.0)


def set_value(tracker: NeedTracker, value: float) -> NeedTracker:
    """The need's value, clamped to 0..cap (a need never grows without bound)."""
    return replace(tracker, value=min(max(value, 0.0), tracker.cap))


def unreachable(tracker: NeedTracker, method: str, minute: int) -> bool:
    """Whether `method` is locked ("unreachable for now") at `minute`."""
    return tracker.locks.get(method, minute) > minute


def decide(tracker: NeedTracker, minute: int) -> tuple[NeedTracker, Decision]:
    """What to do about the need now: the first reachable method, else one ask, else one
    downgrade, else wait."""
    for method in tracker.methods:
        if not unreachable(tracker, method, minute):
            kind: Kind = "try" if method == tracker.methods[0] else "substitute"
            return tracker, Decision(kind, method)
    if not tracker.asked:
        return replace(tracker, asked=True), Decision("ask_for_help", tracker.methods[0])
    if not tracker.downgraded:
        return replace(tracker, downgraded=True), Decision("downgrade")
    first = min(tracker.methods, key=lambda m: (tracker.locks[m], tracker.methods.index(m)))
    return tracker, Decision("wait", first)


def failed(tracker: NeedTracker, method: str, minute: int) -> NeedTracker:
    """A try of `method` failed at `minute`; past the retry budget it is locked for a back-off
    (BACKOFF, doubling per lock, at most MAX_BACKOFF) and gets a fresh budget after."""
    _known(tracker, method)
    tries = tracker.tries.get(method, 0) + 1
    if tries < tracker.budget:
        return replace(tracker, tries={**tracker.tries, method: tries})
    count = tracker.lock_count.get(method, 0) + 1
    wait = min(tracker.max_backoff, tracker.backoff * 2 ** (count - 1))
    return replace(
        tracker,
        tries={**tracker.tries, method: 0},
        locks={**tracker.locks, method: minute + wait},
        lock_count={**tracker.lock_count, method: count},
    )


def succeeded(tracker: NeedTracker, method: str, relief: float) -> NeedTracker:
    """`method` worked: the value drops by `relief`, the method's record is cleared, and the
    need is whole again (no longer downgraded; a later impasse may ask again)."""
    _known(tracker, method)
    return replace(
        set_value(tracker, tracker.value - relief),
        tries={k: v for k, v in tracker.tries.items() if k != method},
        locks={k: v for k, v in tracker.locks.items() if k != method},
        lock_count={k: v for k, v in tracker.lock_count.items() if k != method},
        asked=False,
        downgraded=False,
    )


def new_evidence(tracker: NeedTracker, minute: int) -> NeedTracker:
    """Something new (the resource reappeared, someone said where it is): every lock and
    back-off is lifted, the need is whole again, and one new ask is allowed."""
    return replace(
        tracker,
        tries={},
        locks={},
        lock_count={},
        asked=False,
        downgraded=False,
        last_evidence=minute,
    )


def _known(tracker: NeedTracker, method: str) -> None:
    if method not in tracker.methods:
        raise ValueError(f"need {tracker.need!r} has no method {method!r}")
