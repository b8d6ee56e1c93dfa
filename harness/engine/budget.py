"""An episode's budget: wall-clock seconds and memory, checked as it runs.

An episode that exceeds its budget ends as `timed_out` or `out_of_memory` — recorded like any
other result — and the run goes on with the next one. The wall clock and the process's memory
decide only *whether* an episode finishes, never what it computes: an episode within its
budget is byte-identical to one run without any.

Two layers: the tick loop checks the budget between ticks (`Watch.check`); an alarm signal
(the process's main thread, where serial runs and Ray tasks execute) stops code that never
returns to the loop — an agent stuck in its own `decide` — a little after the budget.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from .contract import EpisodeStatus, EpisodeStop

DEFAULT_SECONDS = 1800.0  # half an hour: the library's episodes take seconds
DEFAULT_MEMORY_MB = 4096  # what one episode may add to its process's resident memory
GRACE_S = 5.0  # the alarm's slack after the budget (at most), for code that never yields
_MEMORY_EVERY = 16  # ticks between two memory readings (a reading costs a file read)


class BudgetExceeded(EpisodeStop):
    """An episode ran out of its time or memory; `status` says which."""

    def __init__(self, status: EpisodeStatus, detail: str) -> None:
        super().__init__(detail)
        self.status = status  # type: ignore[misc]  # this instance's, not the class's default


@dataclass(frozen=True)
class Budget:
    """Seconds of wall clock and megabytes of resident memory one episode may use (None:
    unbounded)."""

    seconds: float | None = DEFAULT_SECONDS
    memory_mb: int | None = DEFAULT_MEMORY_MB

    def watch(self, children: tuple[int, ...] = ()) -> Watch:
        """The budget, started now; `children`: processes the episode's memory lives in too
        (agents behind the process boundary)."""
        return Watch(self, children)

    def describe(self) -> str:
        time_part = "no time limit" if self.seconds is None else f"{self.seconds:g} s"
        memory = "no memory limit" if self.memory_mb is None else f"{self.memory_mb:,} MB"
        return f"{time_part}, {memory}"


def resident_mb(pid: int | None = None) -> float:
    """A process's resident memory now (Linux; this one's by default), or this process's peak
    where /proc is missing (0 for another process then, or one that has ended)."""
    try:
        with open(f"/proc/{pid or 'self'}/statm", "rb") as fh:
            pages = int(fh.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        if pid is not None:
            return 0.0
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Watch:
    """One episode's budget, started now: `check` raises BudgetExceeded once it is spent."""

    def __init__(self, budget: Budget, children: tuple[int, ...] = ()) -> None:
        self.budget, self.children = budget, children
        self.started = time.monotonic()
        self.memory_at_start = self.resident() if budget.memory_mb is not None else 0.0
        self.ticks = 0

    def resident(self) -> float:
        """The episode's resident memory: this process's and its agents' processes'."""
        return resident_mb() + sum(resident_mb(pid) for pid in self.children)

    def check(self) -> None:
        budget = self.budget
        if budget.seconds is not None:
            spent = time.monotonic() - self.started
            if spent > budget.seconds:
                raise BudgetExceeded(
                    EpisodeStatus.TIMED_OUT,
                    f"ran past its time budget of {budget.seconds:g} s",
                )
        self.ticks += 1
        if budget.memory_mb is not None and self.ticks % _MEMORY_EVERY == 1:
            grown = self.resident() - self.memory_at_start
            if grown > budget.memory_mb:
                raise BudgetExceeded(
                    EpisodeStatus.OUT_OF_MEMORY,
                    f"grew its process by {grown:,.0f} MB; its budget is {budget.memory_mb:,} MB",
                )


@contextlib.contextmanager
def alarm(budget: Budget | None) -> Iterator[None]:
    """Stop code that never returns to the tick loop: after the budget and a grace, the
    process's alarm raises BudgetExceeded wherever the episode is (main thread only)."""
    usable = (
        budget is not None
        and budget.seconds is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return
    assert budget is not None and budget.seconds is not None

    def expired(signum: int, frame: object) -> None:
        raise BudgetExceeded(
            EpisodeStatus.TIMED_OUT,
            f"ran past its time budget of {budget.seconds:g} s (stopped by the alarm)",
        )

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, budget.seconds + min(GRACE_S, budget.seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
