"""Who decides when in the tick loop: each agent is asked only when its wake is due (asleep,
walking or at work costs nothing), in name order, as a scan of every agent would ask them -
one woken during the tick by an earlier one's doing included, when its turn is still to come.
A heap of alarms, one pushed per wake set (stale ones skipped), finds the agents due; an alarm
is one int, minute × agents + the agent's number (numbers follow names), so the heap orders
alarms as (minute, name) would without comparing tuples or names."""

from __future__ import annotations

import heapq
from typing import Any

from .contract import Agent


class Waking:
    """The tick loop's decisions and wakes (a part of `Episode`)."""

    agents: dict[str, Any]
    lazy: bool
    now: int
    wake: dict[str, int]
    number: dict[str, int]  # agent → its place in name order
    names: list[str]  # a number's agent
    _alarms: list[int]  # minute × len(agents) + number, per wake set; stale allowed
    _due: list[str]
    _deciding: tuple[int, str] | None
    _dialogue: bool
    _end: int
    _execute: Any
    _drain: Any
    _unprompted: Any

    def _decisions(self, now: int) -> None:
        """Each agent awake decides, in name order; one woken by an earlier one's doing
        this tick decides too when its turn comes. Asleep, walking or at work costs nothing."""
        if not self.lazy:
            for name, agent in self.agents.items():
                self._decide(name, agent, now)
            return
        alarms = self._alarms
        if not alarms or alarms[0] >= (now + 1) * len(self.number):
            return  # the common tick: nobody's alarm rings (seen without a call)
        self._due = self._awake(now)
        while self._due:
            name = heapq.heappop(self._due)
            self._deciding = (now, name)
            self._decide(name, self.agents[name], now)
        self._deciding = None

    def _decide(self, name: str, agent: Agent, now: int) -> None:
        for intent in agent.decide(now):
            self._execute(name, intent, now)
        self._drain(name)
        if self._dialogue:
            self._unprompted(name, now)
        self._set_wake(name, agent.wake_at(now))

    def _awake(self, now: int) -> list[str]:
        """The agents whose wake is due by `now`, sorted by name (so, a heap): the order in
        which a scan of every agent would ask them."""
        alarms, wake, count = self._alarms, self.wake, len(self.number)
        due: set[int] = set()
        ringing = (now + 1) * count  # the least alarm of a later minute
        if not alarms or alarms[0] >= ringing:
            return []  # the common tick: nobody's alarm rings
        names = self.names
        while alarms and alarms[0] < ringing:
            i = heapq.heappop(alarms) % count
            if wake.get(names[i], now) <= now:  # else a later wake replaced this alarm
                due.add(i)
        return [names[i] for i in sorted(due)]

    def _set_wake(self, name: str, minute: int) -> None:
        self.wake[name] = minute
        if minute <= self._end:  # an alarm past the end (NEVER) would never ring
            heapq.heappush(self._alarms, minute * len(self.number) + self.number[name])

    def _woken(self, name: str, minute: int) -> None:
        """News wakes an agent: it decides at `minute`, this very tick if its turn is still
        to come (as a scan in name order would reach it), else at the next."""
        last = self.wake.get(name)
        if last is None or minute < last:
            self._set_wake(name, minute)
            turn = self._deciding
            if turn is not None and minute <= turn[0] and name > turn[1] and name not in self._due:
                heapq.heappush(self._due, name)

    def _rewind_alarms(self) -> None:
        """Alarms from the wakes (at the start, or of a restored run): an agent never asked
        yet is due at once."""
        count = len(self.number)
        self._alarms = sorted(
            self.wake.get(n, self.now) * count + i for n, i in self.number.items()
        )
