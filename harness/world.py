"""World facts: places on a graph with travel times, and facts only the world knows."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from scenarios import Scenario


@dataclass
class World:
    places: tuple[str, ...]
    roads: dict[str, dict[str, int]]
    facts: dict[str, bool | int | str] = field(default_factory=dict)

    @classmethod
    def from_scenario(cls, scenario: Scenario) -> World:
        roads: dict[str, dict[str, int]] = {p.id: {} for p in scenario.world.places}
        for road in scenario.world.roads:
            roads[road.a][road.b] = road.minutes
            roads[road.b][road.a] = road.minutes
        return cls(places=tuple(roads), roads=roads, facts=dict(scenario.world.facts))

    def travel_minutes(self, origin: str, destination: str) -> int | None:
        """Shortest travel time over the road graph; None when unreachable."""
        if origin == destination:
            return 0
        best = {origin: 0}
        frontier = [(0, origin)]
        while frontier:
            cost, here = heapq.heappop(frontier)
            if here == destination:
                return cost
            if cost > best.get(here, cost):
                continue
            for there, minutes in sorted(self.roads[here].items()):
                if cost + minutes < best.get(there, 1 << 60):
                    best[there] = cost + minutes
                    heapq.heappush(frontier, (cost + minutes, there))
        return None
