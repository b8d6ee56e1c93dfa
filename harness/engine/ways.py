"""Shortest ways on the road graph, each origin's search kept and resumed.

A search from one origin settles places in the order of (minutes, name); asking it for a
second destination continues where the first answer stopped, so an origin's search is done
at most once in all (a generated village asks its few public places for every home). A place
on a single road (a home) asks its one neighbour's search and walks that road first: the
neighbour's search settles everything else in the same order with the same predecessors, all
costs shifted by the one road. Both give exactly the way a fresh search that stops at the
destination gives, ties included.
"""

from __future__ import annotations

import heapq

Way = tuple[tuple[str, ...], int]
UNREACHED = 1 << 60


class Search:
    """Dijkstra from `origin`, paused after the last place it was asked about."""

    __slots__ = ("best", "frontier", "origin", "previous", "settled")

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.best: dict[str, int] = {origin: 0}
        self.previous: dict[str, str] = {}
        self.frontier: list[tuple[int, str]] = [(0, origin)]
        self.settled: dict[str, int] = {}  # place → its shortest minutes, once known

    def way_to(self, destination: str, roads: dict[str, dict[str, int]]) -> Way | None:
        """The places after the origin up to `destination`, and the minutes; None if no way."""
        if destination not in self.settled and not self._settle(destination, roads):
            return None
        path = [destination]
        previous, origin = self.previous, self.origin
        while path[-1] in previous and previous[path[-1]] != origin:
            path.append(previous[path[-1]])
        return tuple(reversed(path)), self.settled[destination]

    def _settle(self, destination: str, roads: dict[str, dict[str, int]]) -> bool:
        best, previous, frontier, settled = self.best, self.previous, self.frontier, self.settled
        while frontier:
            cost, here = heapq.heappop(frontier)
            if here in settled or cost > best.get(here, cost):
                continue  # a stale entry (a shorter one came first)
            settled[here] = cost
            for there, minutes in sorted(roads[here].items()):
                if cost + minutes < best.get(there, UNREACHED):
                    best[there] = cost + minutes
                    previous[there] = here
                    heapq.heappush(frontier, (cost + minutes, there))
            if here == destination:
                return True
        return False


class Ways:
    """Every shortest way asked for so far, by (origin, destination)."""

    def __init__(self, roads: dict[str, dict[str, int]]) -> None:
        self.roads = roads
        self._searches: dict[str, Search] = {}
        self._found: dict[tuple[str, str], Way | None] = {}

    def way(self, origin: str, destination: str) -> Way | None:
        key = (origin, destination)
        if key not in self._found:
            self._found[key] = self._shortest(origin, destination)
        return self._found[key]

    def _shortest(self, origin: str, destination: str) -> Way | None:
        if origin == destination:
            return (), 0
        near = self.roads[origin]
        if len(near) == 1:  # a dead end: its one road, then the neighbour's way
            ((neighbour, minutes),) = near.items()
            if destination == neighbour:
                return (neighbour,), minutes
            rest = self._search(neighbour).way_to(destination, self.roads)
            return None if rest is None else ((neighbour, *rest[0]), rest[1] + minutes)
        return self._search(origin).way_to(destination, self.roads)

    def _search(self, origin: str) -> Search:
        if origin not in self._searches:
            self._searches[origin] = Search(origin)
        return self._searches[origin]
