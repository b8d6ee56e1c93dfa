"""Run episodes serially or as Ray tasks; every episode ends in one record with a status.

Results are consumed in the order the jobs are given, never completion order, and the tables
come back to the driver, which writes the traces — or, given a shared trace URI, the worker
writes them there and only numbers come back. Nothing lands on a worker's own disk.
"""

from __future__ import annotations

import atexit
import os
import secrets
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pyarrow as pa

from policies import Policy
from scenarios import Scenario

from . import diagnostics, ray_tasks
from .boundary import AgentCrash
from .budget import Budget
from .contract import EpisodeStatus, EpisodeStop
from .episode import run_episode
from .lifecycle import transition
from .ray_tasks import worker_niceness


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
    # what its rows' types declare summed (diagnostics.usage): the model calls' tokens
    model_usage: dict[str, float] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)  # its trace files' SHA-256, once written
    sizes: dict[str, int] = field(default_factory=dict)  # and their sizes in bytes
    # where the episode's time went where it ran (simulation, scoring): seconds, for the
    # search's per-trial timing; never part of a trace
    seconds: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", transition(None, EpisodeStatus(self.status)))

    def crashed(self, error: str) -> EpisodeRecord:
        """This record, crashed after all (measuring it failed): no tables kept."""
        status = transition(self.status, EpisodeStatus.CRASHED)
        return replace(
            self, status=status, error=error, tables={}, measured=None, digests={}, sizes={}
        )

    def summary(self) -> dict[str, Any]:
        """The manifest's entry; an episode with traces lists each file's SHA-256 (and its
        size, checked before a reader reads it)."""
        entry = {
            "scenario": self.scenario,
            "seed": self.seed,
            "status": self.status,
            "error": self.error,
            "retried": self.retried,
        }
        if self.digests:
            entry["sha256"] = dict(sorted(self.digests.items()))
        if self.sizes:
            entry["bytes"] = dict(sorted(self.sizes.items()))
        return entry


def _execute(
    scenario: Scenario,
    policy: Policy,
    seed: int,
    agent: str,
    budget: Budget | None = None,
) -> EpisodeRecord:
    began = time.perf_counter()
    try:
        tables = run_episode(scenario, policy, seed, agent, budget)
    except EpisodeStop as exc:  # an agent that cannot go on, or a spent budget: the run goes on
        usage = exc.spent or {}  # what it spent still counts (the model calls paid for)
        return EpisodeRecord(scenario.name, seed, exc.status, str(exc), model_usage=usage)
    except MemoryError:
        return EpisodeRecord(
            scenario.name,
            seed,
            EpisodeStatus.OUT_OF_MEMORY,
            "MemoryError: the process ran out of memory",
        )
    except AgentCrash as exc:  # agent code behind the boundary: its own words, as in process
        return EpisodeRecord(scenario.name, seed, EpisodeStatus.CRASHED, exc.detail)
    except Exception as exc:  # noqa: BLE001 - a crash is a result, recorded with its cause
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return EpisodeRecord(scenario.name, seed, EpisodeStatus.CRASHED, detail)
    return EpisodeRecord(
        scenario.name,
        seed,
        EpisodeStatus.OK,
        None,
        tables,
        model_usage=diagnostics.usage(tables),
        seconds={"simulation": time.perf_counter() - began},
    )


def run_serial(
    jobs: Iterable[Job],
    policy: Policy,
    agent: str,
    on_done: Callable[[EpisodeRecord], None] | None = None,
    budget: Budget | None = None,
) -> Iterator[EpisodeRecord]:
    """Episodes in this process; `agent` is the agent factory's import path."""
    for job in jobs:  # the caller's order is the consumption order, never completion
        record = _execute(job.scenario, policy, job.seed, agent, budget)
        if on_done:
            on_done(record)
        yield record


def local_cluster_environment() -> dict[str, str]:
    """What makes a local Ray cluster private: every process on 127.0.0.1 and a token.

    Ray binds its GCS, raylet and workers to all interfaces unless the node's address is
    loopback, and it picks loopback only where it believes no cluster can form (its switch
    for Windows and macOS); with token authentication, a client must present the token
    (Ray's own, checked on every RPC). The token is fresh per process and lives only in the
    environment the cluster's processes inherit: nothing is written to ~/.ray.
    """
    return {
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_urlsafe(32),
    }


def _private_cluster() -> None:
    """Set the environment of `local_cluster_environment` for this process and the cluster
    it starts. Ray reads these when it is imported, so a process that imported it already
    has Ray re-read them, as Ray itself does when it turns token mode on."""
    os.environ.update(local_cluster_environment())
    from ray._private import ray_constants
    from ray._raylet import AuthenticationTokenLoader, Config  # type: ignore[attr-defined]

    ray_constants.ENABLE_RAY_CLUSTER = False
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


def ensure_ray(workers: int | None = None, address: str | None = None) -> None:
    """Start a private local cluster, or attach to a user's cluster with its own settings
    unchanged; once per process, quiet, no dashboard."""
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
        with ray_tasks.sigterm_kept():
            ray.init(address=address, **kwargs)
    else:
        _private_cluster()
        os.environ["RAY_worker_niceness"] = str(worker_niceness())
        _start_local_cluster(ray, num_cpus=workers or os.cpu_count() or 1, **kwargs)


def _start_local_cluster(ray: Any, **kwargs: Any) -> None:
    """ray.init of a local cluster whose processes are recorded, stopped when this process
    ends, and swept by the next start should it be killed first (villagelab.processes)."""
    from villagelab import processes

    processes.sweep()
    before = set(processes.descendants([os.getpid()]))
    atexit.register(stop_local_cluster)  # an exit, Ctrl-C or SIGTERM inside ray.init too
    from ray._common.utils import get_default_ray_temp_dir

    # a kill inside ray.init: its processes carry the mark, and hold its session folder open
    # (Ray names it session_<date>_<the pid of ray.init's caller>)
    temp: str = get_default_ray_temp_dir()
    session = f"{temp}/session_*_{os.getpid()}"
    with (
        processes.starting("ray", creates=session),
        ray_tasks.interruptible_children(),
        ray_tasks.sigterm_kept(),
    ):
        ray.init(**kwargs)
    ray_tasks.mark_closed_batches_here()
    started = [p for p in processes.descendants([os.getpid()]) if p not in before]
    node = ray._private.worker._global_node  # its session folder: every process's logs
    processes.remember("ray", started, node.get_session_dir_path() if node else None)
    atexit.unregister(stop_local_cluster)
    atexit.register(stop_local_cluster)  # runs before Ray's own exit hook (last in, first out)


def stop_local_cluster() -> None:
    """ray.shutdown, then stop whatever of the recorded cluster outlived it (Ray leaves its
    dashboard and runtime-env agents behind when its raylet dies first)."""
    import ray

    from villagelab import processes

    try:
        if ray.is_initialized():
            ray.shutdown()
    finally:  # a shutdown that fails has stopped some of them at most
        processes.stop_recorded("ray")


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
        task = ray.remote(max_retries=0)(ray_tasks.episode_task)
        _REMOTE[function] = task.options(name=function.__name__)
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
        budget: Budget | None = None,
        submit_order: list[Job] | None = None,
        agent: str,
        function: Callable[..., EpisodeRecord] | None = None,
        extra: tuple[Any, ...] = (),
    ) -> None:
        import ray

        ensure_ray(workers, address)
        self._ray, self.budget = ray, budget
        task = _remote_episode(function)
        limits = {} if budget is None else {"budget": budget}  # a caller's function may not
        # each scenario in the object store once, not pickled for every task (~7 ms a village)
        stored: dict[int, Any] = {}

        def scenario(job: Job) -> Any:
            key = id(job.scenario)
            if key not in stored:
                stored[key] = (job.scenario, ray.put(job.scenario))  # kept alive with its id
            return stored[key][1]

        episode, self._closed = function or _execute, ray_tasks.closed_mark()

        def submit(job: Job) -> Any:
            return task.remote(
                episode, self._closed, scenario(job), policy, job.seed, agent, *extra, **limits
            )

        self._submit: Callable[[Job], Any] = submit
        self.fixed = list(jobs)  # the caller's order: results are consumed in it
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
                record: EpisodeRecord = ray.get(self.pending[job.key], timeout=self._last_resort)
            except ray.exceptions.GetTimeoutError:
                ray.cancel(self.pending[job.key], force=True)
                record = EpisodeRecord(
                    job.scenario.name,
                    job.seed,
                    EpisodeStatus.TIMED_OUT,
                    f"no result within {self._last_resort:g} s (the worker did not answer)",
                )
            except ray.exceptions.OutOfMemoryError as exc:  # Ray's memory monitor killed it
                reason = str(exc).splitlines()[0]
                record = EpisodeRecord(
                    job.scenario.name, job.seed, EpisodeStatus.OUT_OF_MEMORY, reason
                )
            except ray.exceptions.RayError as exc:
                reason = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
                if tries < RETRIES:
                    tries, retried = tries + 1, reason
                    self.pending[job.key] = self._submit(job)
                    continue
                record = EpisodeRecord(job.scenario.name, job.seed, EpisodeStatus.FAILED, reason)
            return replace(record, retried=retried)

    @property
    def _last_resort(self) -> float | None:
        """How long the driver waits for one result before giving its worker up. The worker
        ends an episode at its budget itself; this catches a worker that never answers. A
        task may wait for a free worker behind others that each use their whole budget."""
        if self.budget is None or self.budget.seconds is None:
            return None
        return 2 * self.budget.seconds + 60.0

    def close(self) -> None:
        """Give up what was not consumed (a pruned trial), never killing a worker: on a local
        cluster by the batch's mark (`ray_tasks`: no ray.cancel, whose race aborted a driver),
        on a user's cluster by ray.cancel."""
        if self.pending and self._closed is not None:
            open(self._closed, "x").close()
        elif self.pending:
            for ref in self.pending.values():
                self._ray.cancel(ref, force=False)
        self.pending.clear()


def run_ray(
    jobs: Iterable[Job],
    policy: Policy,
    *,
    workers: int | None = None,
    address: str | None = None,
    budget: Budget | None = None,
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
        budget=budget,
        submit_order=submit_order,
        agent=agent,
    )
    for record in batch:
        if on_done:
            on_done(record)
        yield record
