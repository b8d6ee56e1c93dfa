"""Who decides when in the tick loop: each agent is asked only when its wake is due (asleep,
walking or at work costs nothing), in name order, as a scan of every agent would ask them -
one woken during the tick by an earlier one's doing included, when its turn is still to come.
A heap of alarms, one pushed per wake set (stale ones skipped), finds the agents due; an alarm
is one int, minute × agents + the agent's number (numbers follow names), so the heap orders
alarms as (minute, name) would without comparing tuples or names."""

from __future__ import annotations

import heapq
from collections.abc import Callable


class Wakes:
    """The agents' wakes and the alarms that find the ones due (a part of `Episode`)."""

    def __init__(self, number: dict[str, int], start: int, end: int) -> None:
        self.number = number  # agent → its place in name order
        self.names = list(number)  # a number's agent
        self.end = end
        self.wake: dict[str, int] = {}  # agent → the next minute worth asking it to decide
        self.alarms: list[int] = []  # minute × agents + number, per wake set; stale allowed
        self.due: list[str] = []  # agents still to decide this tick, by name
        self.deciding: tuple[int, str] | None = None  # (minute, agent) deciding now, if any
        self.rewind({}, start)  # every agent due at the start

    def each_due(self, now: int, decide: Callable[[str], None]) -> None:
        """`decide` each agent whose wake is due, in name order; one woken by an earlier one's
        doing this tick is decided too when its turn comes."""
        alarms = self.alarms
        if not alarms or alarms[0] >= (now + 1) * len(self.number):
            return  # the common tick: nobody's alarm rings (seen without a call)
        self.due = self._awake(now)
        while self.due:
            name = heapq.heappop(self.due)
            self.deciding = (now, name)
            decide(name)
        self.deciding = None

    def _awake(self, now: int) -> list[str]:
        """The agents whose wake is due by `now`, sorted by name (so, a heap): the order in
        which a scan of every agent would ask them."""
        alarms, wake, count = self.alarms, self.wake, len(self.number)
        due: set[int] = set()
        ringing = (now + 1) * count  # the least alarm of a later minute
        names = self.names
        while alarms and alarms[0] < ringing:
            i = heapq.heappop(alarms) % count
            if wake.get(names[i], now) <= now:  # else a later wake replaced this alarm
                due.add(i)
        return [names[i] for i in sorted(due)]

    def set(self, name: str, minute: int) -> None:
        self.wake[name] = minute
        if minute <= self.end:  # an alarm past the end (NEVER) would never ring
            heapq.heappush(self.alarms, minute * len(self.number) + self.number[name])

    def woken(self, name: str, minute: int) -> None:
        """News wakes an agent: it decides at `minute`, this very tick if its turn is still
        to come (as a scan in name order would reach it), else at the next."""
        last = self.wake.get(name)
        if last is None or minute < last:
            self.set(name, minute)
            turn = self.deciding
            if turn is not None and minute <= turn[0] and name > turn[1] and name not in self.due:
                heapq.heappush(self.due, name)

    def rewind(self, wake: dict[str, int], now: int) -> None:
        """Wakes and their alarms (at the start, or of a restored run): an agent never asked
        yet is due at once."""
        self.wake = dict(wake)
        count = len(self.number)
        self.alarms = sorted(self.wake.get(n, now) * count + i for n, i in self.number.items())
