"""Where the world has each agent: at a place, or on the way with an act to carry out.

`Whereabouts` keeps, beside each agent's position, who is at each place (sorted) and when
walks end, so that the tick loop asks "who is here?" and "who arrives now?" without looking
at every agent every tick.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .records import quick_init


@quick_init
@dataclass(frozen=True)
class Position:
    location: str | None
    destination: str | None = None
    arrive_at: int | None = None
    intent: dict[str, Any] | None = None  # the act to carry out on arrival
    blocked: bool = False  # the way was impassable: the act fails on arrival
    passed: tuple[str, ...] = ()  # places on the way, whose signs are seen on the way


class Whereabouts(dict[str, Position]):
    """Agent → position, with an index of who is at each place and a heap of walks' ends.

    Positions change only by item assignment (as the tick loop does), which keeps the index.
    """

    def __init__(self, positions: Iterable[tuple[str, Position]] = ()) -> None:
        super().__init__()
        self.at: dict[str, list[str]] = {}  # place → the agents there, sorted by name
        self.crowded: set[str] = set()  # places with more than one agent: where talk can be
        self._crowded_places: list[str] | None = []  # those sorted, until someone moves
        self._arrivals: list[tuple[int, str]] = []  # (minute, agent); stale entries allowed
        for name, position in positions:
            self[name] = position

    def __setitem__(self, name: str, position: Position) -> None:
        old = self.get(name)
        if old is not None and old.location is not None:
            here = self.at[old.location]
            del here[bisect_left(here, name)]
            if len(here) < 2:
                self.crowded.discard(old.location)
                if not here:
                    del self.at[old.location]
        self._crowded_places = None
        super().__setitem__(name, position)
        if position.location is not None:
            here = self.at.setdefault(position.location, [])
            insort(here, name)
            if len(here) > 1:
                self.crowded.add(position.location)
        if position.arrive_at is not None:
            heapq.heappush(self._arrivals, (position.arrive_at, name))

    def crowded_places(self) -> list[str]:
        """The places with more than one agent, sorted (the same list until someone moves)."""
        if self._crowded_places is None:
            self._crowded_places = sorted(self.crowded)
        return self._crowded_places

    def here(self, place: str | None) -> list[str]:
        """The agents at `place`, sorted by name (a copy)."""
        return list(self.at.get(place, ())) if place is not None else []

    def arriving(self, now: int) -> list[str]:
        """The agents whose walk has ended by `now`, sorted by name."""
        if not self._arrivals or self._arrivals[0][0] > now:
            return []  # the common tick: nobody's walk ends
        due: set[str] = set()
        while self._arrivals and self._arrivals[0][0] <= now:
            due.add(heapq.heappop(self._arrivals)[1])
        return sorted(n for n in due if (a := self[n].arrive_at) is not None and a <= now)
