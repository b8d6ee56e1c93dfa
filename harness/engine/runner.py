"""Run episodes serially or as Ray tasks; every episode ends in one record with a status.

Results are consumed in the order the jobs are given, never completion order, and the tables
come back to the driver, which writes the traces — or, given a shared trace URI, the worker
writes them there and only numbers come back. Nothing lands on a worker's own disk.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pyarrow as pa

from policies import Policy
from scenarios import Scenario

from .contract import EpisodeStatus
from .episode import run_episode
from .lifecycle import transition


@dataclass(frozen=True)
class Job:
    scenario: Scenario
    seed: int

    @property
    def key(self) -> tuple[str, int]:
        return (self.scenario.name, self.seed)


@dataclass(frozen=True)
class EpisodeRecord:
    """How one episode ended, with its tables (or where a worker wrote them). Frozen: a
    later step (measuring, a retry) makes a new record with `replace` or `crashed`."""

    scenario: str
    seed: int
    status: EpisodeStatus
    error: str | None = None
    tables: dict[str, pa.Table] = field(default_factory=dict, repr=False)
    measured: Any = None  # what a scoring task measured on the worker, if one did
    stored_at: str | None = None  # the shared trace URI the worker wrote the tables to
    retried: str | None = None  # why Ray ran it a second time (a worker or node was lost)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", transition(None, EpisodeStatus(self.status)))

    def crashed(self, error: str) -> EpisodeRecord:
        """This record, crashed after all (measuring it failed): no tables kept."""
        status = transition(self.status, EpisodeStatus.CRASHED)
        return replace(self, status=status, error=error, tables={}, measured=None)

    def summary(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "seed": self.seed,
            "status": self.status,
            "error": self.error,
            "retried": self.retried,
        }


def _execute(scenario: Scenario, values: dict[str, Any], seed: int, agent: str) -> EpisodeRecord:
    try:
        tables = run_episode(scenario, Policy(values), seed, agent)
    except Exception as exc:  # noqa: BLE001 - a crash is a result, recorded with its cause
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return EpisodeRecord(scenario.name, seed, "crashed", detail)
    return EpisodeRecord(scenario.name, seed, "ok", None, tables)


def ordered(jobs: Iterable[Job]) -> list[Job]:
    """The caller's order is the consumption order: fixed by the caller, never by completion."""
    return list(jobs)


def run_serial(
    jobs: Iterable[Job],
    policy: Policy,
    agent: str,
    on_done: Callable[[EpisodeRecord], None] | None = None,
) -> Iterator[EpisodeRecord]:
    """Episodes in this process; `agent` is the agent factory's import path."""
    for job in ordered(jobs):
        record = _execute(job.scenario, dict(policy), job.seed, agent)
        if on_done:
            on_done(record)
        yield record


def ensure_ray(workers: int | None = None, address: str | None = None) -> None:
    """Start (or attach to) Ray once per process; quiet, no dashboard."""
    import ray

    if ray.is_initialized():
        return
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")
    kwargs: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "configure_logging": False,
    }
    if address:
        ray.init(address=address, **kwargs)
    else:
        # a private cluster on loopback for this process; a token would only be left in ~/.ray
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        ray.init(num_cpus=workers or os.cpu_count() or 1, **kwargs)


_REMOTE: dict[Callable[..., EpisodeRecord], Any] = {}


RETRIES = 1  # a lost worker or node costs one more run of the episode, recorded on its record


def _remote_episode(function: Callable[..., EpisodeRecord] | None = None) -> Any:
    """An episode function as a Ray task, made once per process (each remote() is a new task
    type). A caller may pass its own function with `_execute`'s arguments and more (e.g. one
    that also scores the episode on the worker). Ray itself never retries: the batch does,
    so that a retry is recorded rather than silent."""
    import ray

    function = function or _execute
    if function not in _REMOTE:
        _REMOTE[function] = ray.remote(max_retries=0)(function)
    return _REMOTE[function]


class RayBatch:
    """Episodes submitted to Ray at once; results come back in (scenario, seed) order.

    Several batches (trials) may be in flight together. Closing a batch before its end (a
    pruned trial) cancels whatever it has not consumed.
    """

    def __init__(
        self,
        jobs: Iterable[Job],
        policy: Policy,
        *,
        workers: int | None = None,
        address: str | None = None,
        timeout_s: float | None = None,
        submit_order: list[Job] | None = None,
        agent: str,
        function: Callable[..., EpisodeRecord] | None = None,
        extra: tuple[Any, ...] = (),
    ) -> None:
        import ray

        ensure_ray(workers, address)
        self._ray, self.timeout_s = ray, timeout_s
        task = _remote_episode(function)
        values = dict(policy)
        self._submit = lambda job: task.remote(job.scenario, values, job.seed, agent, *extra)
        self.fixed = ordered(jobs)
        self.pending = {job.key: self._submit(job) for job in (submit_order or self.fixed)}

    def __iter__(self) -> Iterator[EpisodeRecord]:
        try:
            for job in self.fixed:
                record = self._result(job)
                del self.pending[job.key]
                yield record
        finally:
            self.close()

    def _result(self, job: Job) -> EpisodeRecord:
        """The episode's record; an episode whose worker was lost runs once more, and its
        record says why. (Episodes catch their own exceptions, so a Ray error means the
        worker, its node or the result was lost.)"""
        ray = self._ray
        retried: str | None = None
        tries = 0
        while True:
            try:
                record: EpisodeRecord = ray.get(self.pending[job.key], timeout=self.timeout_s)
            except ray.exceptions.GetTimeoutError:
                ray.cancel(self.pending[job.key], force=True)
                record = EpisodeRecord(
                    job.scenario.name, job.seed, "timed_out", f"no result within {self.timeout_s} s"
                )
            except ray.exceptions.RayError as exc:
                reason = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
                if tries < RETRIES:
                    tries, retried = tries + 1, reason
                    self.pending[job.key] = self._submit(job)
                    continue
                record = EpisodeRecord(job.scenario.name, job.seed, "failed", reason)
            return replace(record, retried=retried)

    def close(self) -> None:
        for ref in self.pending.values():
            self._ray.cancel(ref, force=True)
        self.pending.clear()


def run_ray(
    jobs: Iterable[Job],
    policy: Policy,
    *,
    workers: int | None = None,
    address: str | None = None,
    timeout_s: float | None = None,
    submit_order: list[Job] | None = None,
    on_done: Callable[[EpisodeRecord], None] | None = None,
    agent: str,
) -> Iterator[EpisodeRecord]:
    """Episodes as Ray tasks, yielded in (scenario, seed) order whatever order they finish in.

    `submit_order` lets a test shuffle submission; results must not depend on it.
    """
    batch = RayBatch(
        jobs,
        policy,
        workers=workers,
        address=address,
        timeout_s=timeout_s,
        submit_order=submit_order,
        agent=agent,
    )
    for record in batch:
        if on_done:
            on_done(record)
        yield record
