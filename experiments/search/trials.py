"""How a search measures a policy: its episodes in a fixed instance order, each scored where it
ran, reported to Optuna as it comes back so the pruner can stop a bad trial early.

Scorecards of policies measured whole (the champion, the anchor, on selection or confirmation
seeds) are kept in the study's folder, keyed by policy and seeds, so a resumed study does not
run them again.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna

from experiments.evaluation.dispatch import Execution, agent_reference, episodes
from experiments.evaluation.evaluate import Instrument
from experiments.search.repeats import Told
from experiments.search.study import Decision
from harness import Job
from policies import Policy
from scorecards import Scorecard, Values, assemble, instance_objective, merge_values


@dataclass
class TrialOutcome:
    number: int
    policy: Policy
    objective: float
    decision: Decision
    reason: str
    champion_objective: float
    seconds: float  # wall time of the whole trial
    simulation: float = 0.0  # of which waiting for episodes
    label: str = ""  # how to name it: the number, or "<sub-study> #n" in local mode
    feasible: bool = True  # held every guardrail on the selection seeds


class Stopwatch:
    """Where a trial's wall time goes, by part (optuna, mlflow, scoring, ...): seconds."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._running: dict[str, float] = {}  # parts under way: when they began

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        began = self._running[name] = time.perf_counter()
        try:
            yield
        finally:
            del self._running[name]
            self.add(name, time.perf_counter() - began)

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def logged(self, began: float) -> dict[str, float]:
        """A trial's seconds by part, as logged: the whole (since `began`, monotonic);
        simulation and scoring where the episodes ran (summed over episodes, so on Ray more
        than the wall time may pass); the driver's wait for episodes, its Optuna and MLflow
        calls (to this log) and promotion; and the overhead: the whole but the waiting."""
        whole = time.monotonic() - began
        parts = self.so_far()
        out = {"trial_seconds": whole, "overhead_seconds": whole - parts.get("waiting", 0.0)}
        out.update({f"{name}_seconds": seconds for name, seconds in sorted(parts.items())})
        return {k: round(v, 4) for k, v in out.items()}

    def so_far(self) -> dict[str, float]:
        """Seconds by part up to now, parts under way included."""
        now, out = time.perf_counter(), dict(self.seconds)
        for name, began in self._running.items():
            out[name] = out.get(name, 0.0) + now - began
        return out


@dataclass
class Pending:
    """A trial asked and submitted, not yet consumed."""

    study: optuna.Study
    trial: optuna.Trial
    policy: Policy
    run_id: str
    stream: Iterator[Any] | None  # None for a repeat: nothing is run
    began: float
    clock: Stopwatch = field(default_factory=Stopwatch)
    repeat_of: Told | None = None  # the trial that measured this policy already


class HeldReports:
    """A trial's intermediate values, held (`hold`) and written together when it is measured:
    one journal write and fsync instead of one per step (~0.5 ms each), the pruner reading
    them as if written. Never held longer than `limit` seconds, so a live view
    (optuna-dashboard) still follows a long trial; a driver killed meanwhile loses them with
    the trial, which the next start records as failed and queues again."""

    def __init__(self, hold: Callable[[], AbstractContextManager[None]], limit: float = 1.0):
        self.hold, self.limit = hold, limit
        self._held: AbstractContextManager[None] | None = None
        self._since = 0.0

    def __enter__(self) -> None:  # around a report and the pruner's decision
        if self._held is None:
            self._held, self._since = self.hold(), time.monotonic()
            self._held.__enter__()

    def __exit__(self, *exc: object) -> None:
        if exc[0] is not None or time.monotonic() - self._since >= self.limit:
            self.write()

    def write(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            held.__exit__(None, None, None)


class Pruned(Exception):
    """The pruner stopped a trial; `reported` holds the (step, value) pairs it saw."""

    def __init__(self, reported: list[tuple[int, float]], records: list[Any]) -> None:
        super().__init__("pruned")
        self.reported, self.records = reported, records  # the episodes it ran

    def reason(self, planned: int, against: str) -> str:
        return (
            f"pruned by the Wilcoxon pruner after {len(self.reported)} of "
            f"{planned} instances: worse than {against}"
        )


class EpisodeFailure(Exception):
    """An episode of the trial did not end ok; `records` are the episodes it ran, that one too."""

    def __init__(self, message: str, records: list[Any] | None = None) -> None:
        super().__init__(message)
        self.records = records or []


@dataclass
class Measured:
    """A trial's measurement: values per (scenario, metric, seed), the episode records, the
    seconds spent waiting for episodes, and the intermediate values reported to Optuna."""

    values: Values
    records: list[Any]
    waited: float
    reported: list[tuple[int, float]] = field(default_factory=list)


class Evaluator:
    def __init__(
        self,
        instrument: Instrument,
        execution: Execution,
        mode: str,
        folder: Path,
        hashes: dict[str, str],
        hold: Callable[[], AbstractContextManager[None]] = nullcontext,
    ) -> None:
        self.instrument, self.execution, self.mode = instrument, execution, mode
        self.folder, self.hashes = folder, hashes
        self.hold = hold  # holds Optuna's writes and writes them at once (journal.held)
        self._agent: str | None = None  # the agent's reference, looked up once (see stream)

    def jobs(self, seeds: tuple[int, ...]) -> list[Job]:
        """The fixed instance order: seed by seed, every scenario in each, so early
        intermediate values already cover the whole suite."""
        return [Job(s, seed) for seed in seeds for s in self.instrument.scenarios]

    def stream(
        self, policy: Policy, seeds: tuple[int, ...], location: str | None = None
    ) -> Iterator[Any]:
        """The episodes of one evaluation, each measured where it ran; given a trace
        `location` (a trial's, under the shared trace URI), written there too."""
        if self._agent is None:  # the registry lookup is ~4 ms: not on every trial's clock
            self._agent = agent_reference(self.execution)
        return episodes(
            self.jobs(seeds),
            policy,
            self.instrument,
            self.execution,
            measured=True,
            traces_uri=location,
            agent=self._agent,
        )

    def measure(
        self,
        policy: Policy,
        seeds: tuple[int, ...],
        trial: optuna.Trial | None,
        stream: Iterator[Any] | None = None,
        clock: Stopwatch | None = None,
    ) -> Measured:
        """Run the instances, score each as it comes back (in fixed order), report it, and
        stop early if the pruner says so. `clock` gets the episodes' own simulation and
        scoring seconds (where they ran), the waiting, and Optuna's share."""
        clock = clock or Stopwatch()
        total = len(self.jobs(seeds))
        stream = stream if stream is not None else self.stream(policy, seeds)
        parts: list[Values] = []
        records: list[Any] = []
        reported: list[tuple[int, float]] = []
        waited = 0.0
        held = HeldReports(self.hold)
        try:
            for step in range(total):
                t0 = time.monotonic()
                record = next(stream)
                waited += time.monotonic() - t0
                for part, seconds in record.seconds.items():
                    clock.add(part, seconds)
                if record.status != "ok":
                    again = f" (after a retry: {record.retried})" if record.retried else ""
                    raise EpisodeFailure(
                        f"episode {record.scenario}/{record.seed} "
                        f"{record.status}: {record.error}{again}",
                        [*records, record],
                    )
                records.append(record)
                part = record.measured  # measured where the episode ran
                parts.append(part)
                value = instance_objective(part, self.instrument.definition)
                if value is None:
                    continue
                reported.append((step, value))
                if trial is not None and self.mode != "pareto":
                    with clock.part("optuna"), held:
                        trial.report(value, step)
                        prune = trial.should_prune()
                    if prune:
                        raise Pruned(reported, records)
        finally:
            stream.close()  # type: ignore[attr-defined]  # a generator: cancels what is left
            clock.add("waiting", waited)
            with clock.part("optuna"):
                held.write()
        return Measured(merge_values(parts), records, waited, reported)

    def scorecard(self, policy: Policy, values: Values) -> Scorecard:
        """The harness and instrument hashes are the ones the evaluator was made with (what
        the study is bound to), not hashed again from every file for each trial."""
        hashes = {"harness": self.hashes["harness"], "instrument": self.hashes["instrument"]}
        return assemble(
            values, self.instrument.definition, hashes={**hashes, "policy": policy.hash}
        )

    def whole(self, policy: Policy, seeds: tuple[int, ...]) -> tuple[Scorecard, list[Any]]:
        """A policy measured on every instance, with no pruning; its scorecard is kept."""
        measured = self.measure(policy, seeds, None)
        card = self.scorecard(policy, measured.values)
        self.keep(card, seeds)
        return card, measured.records

    def card(self, policy: Policy, seeds: tuple[int, ...]) -> Scorecard:
        """A policy's scorecard on these seeds: kept from before, or measured now."""
        cache = self._cached(policy.hash, seeds)
        if cache.exists():
            card = Scorecard.from_json(json.loads(cache.read_text()))
            if (card.harness, card.instrument) == (
                self.hashes["harness"],
                self.hashes["instrument"],
            ):
                return card
        return self.whole(policy, seeds)[0]

    def keep(self, card: Scorecard, seeds: tuple[int, ...]) -> None:
        card.write_json(self._cached(card.policy, seeds))

    def _cached(self, policy_hash: str, seeds: tuple[int, ...]) -> Path:
        key = hashlib.blake2b(",".join(map(str, seeds)).encode(), digest_size=6).hexdigest()
        return self.folder / "cache" / f"{policy_hash}-{key}.json"

    def in_flight(self, seeds: tuple[int, ...]) -> int:
        """Trials to run at once: as many as the workers can take whole (at least one)."""
        if self.execution.serial:
            return 1
        import ray

        from harness import ensure_ray

        ensure_ray(self.execution.workers, self.execution.address)
        workers = int(ray.cluster_resources().get("CPU", 1))
        return max(1, workers // len(self.jobs(seeds)))
