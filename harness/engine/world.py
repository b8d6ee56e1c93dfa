"""World facts: places on a road graph, facts only the world knows, conserved resources.

Agents never read this; the harness checks it when an action executes and reports to the
agent only what its senses notice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scenarios import PlaceFact, Scenario

from .ways import Ways

# a place's facts the world's rules read, as the key's suffix (`bridge.passable`)
_PASSABLE, _OPEN = f".{PlaceFact.PASSABLE.value}", f".{PlaceFact.OPEN.value}"


@dataclass(frozen=True)
class Move:
    """One unit-count change of a resource at a holder: a row of the event ledger."""

    resource: str
    holder: str
    delta: int
    kind: str  # transfer / source / sink


@dataclass
class World:
    places: tuple[str, ...]
    roads: dict[str, dict[str, int]]
    facts: dict[str, bool | int | float | str] = field(default_factory=dict)
    stock: dict[tuple[str, str], int] = field(default_factory=dict)  # (holder, resource) → n
    daylight: tuple[int, int] | None = None  # minutes of the day with light from outside
    minute: int = 0  # the world's clock, set by the tick loop
    # shortest ways (the road graph never changes; passability is checked along the way)
    _ways: Ways | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_scenario(cls, scenario: Scenario) -> World:
        roads: dict[str, dict[str, int]] = {p.id: {} for p in scenario.world.places}
        for road in scenario.world.roads:
            roads[road.a][road.b] = road.minutes
            roads[road.b][road.a] = road.minutes
        stock: dict[tuple[str, str], int] = {}
        for s in scenario.world.stock:
            stock[(s.holder, s.resource)] = stock.get((s.holder, s.resource), 0) + s.count
        return cls(
            places=tuple(roads),
            roads=roads,
            facts=dict(scenario.world.facts),
            stock=stock,
            daylight=scenario.world.daylight,
            minute=scenario.start,
        )

    def route(self, origin: str, destination: str) -> tuple[list[str], int] | None:
        """The shortest way (places after the origin, in order) and its minutes."""
        if self._ways is None:
            self._ways = Ways(self.roads)
        way = self._ways.way(origin, destination)
        return None if way is None else (list(way[0]), way[1])

    def passable(self, place: str) -> bool:
        return bool(self.facts.get(place + _PASSABLE, True))

    def is_open(self, place: str) -> bool:
        return bool(self.facts.get(place + _OPEN, True))

    def is_daylight(self) -> bool:
        if self.daylight is None:
            return True
        clock = self.minute % (24 * 60)
        return self.daylight[0] <= clock < self.daylight[1]

    def count(self, holder: str, resource: str) -> int:
        return self.stock.get((holder, resource), 0)

    def transfer(self, resource: str, giver: str, taker: str) -> list[Move]:
        """Move one unit; conserved by construction: the two ledger rows net to zero."""
        self.stock[(giver, resource)] = self.count(giver, resource) - 1
        self.stock[(taker, resource)] = self.count(taker, resource) + 1
        return [Move(resource, giver, -1, "transfer"), Move(resource, taker, +1, "transfer")]

    def create(self, resource: str, holder: str, n: int = 1) -> list[Move]:
        """Units appearing through a declared source (a supply, a finished work)."""
        self.stock[(holder, resource)] = self.count(holder, resource) + n
        return [Move(resource, holder, n, "source")]

    def consume(self, resource: str, holder: str, n: int = 1) -> list[Move]:
        """Units used up through a declared sink (a meal eaten, paper painted on)."""
        self.stock[(holder, resource)] = self.count(holder, resource) - n
        return [Move(resource, holder, -n, "sink")]

    def inventory(self) -> list[tuple[str, str, int]]:
        return sorted((holder, resource, n) for (holder, resource), n in self.stock.items())
