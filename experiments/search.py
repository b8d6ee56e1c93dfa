"""The outer loop (DESIGN §7): Optuna ask/tell over the whitelist, champion and rollback.

One process — the driver — alone writes to Optuna and MLflow; episodes run as Ray tasks (or
serially). A trial's instances are scored as they come back in a fixed order and reported as
intermediate values, so a pruner can stop a bad trial and cancel its remaining episodes. A
trial is promoted only through `promotion` (paired win on the selection seeds, guardrails,
no regression, then confirmation on fresh seeds) and under a lock; the champion itself lives
in the MLflow registry. The same command resumes the same study.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from harness import Job, read_traces, write_episode
from harness.agents.llm import model_metrics
from harness.agents.registry import check_made
from harness.engine.episode import setup_for
from harness.engine.store import join_uri, within
from policies import InputError, Policy, baseline_path, load_policy
from scorecards import Scorecard, Values, assemble, instance_objective, merge_values
from scorecards.report import write_reports

from . import promotion
from .champion import Registry
from .config import SearchConfig
from .evaluation import Execution, Instrument, collect, episodes
from .names import check_name
from .study import Objectives, counted, local_name, open_study, recover, sample, storage_for
from .tracking import Tracker


@dataclass(frozen=True)
class RunsDir:
    """Everything a search keeps, under one folder (DESIGN §9 defaults)."""

    root: Path

    @property
    def journal(self) -> Path:
        return self.root / "optuna.journal"

    @property
    def tracking_uri(self) -> str:
        return f"sqlite:///{(self.root / 'mlflow.db').resolve()}"

    @property
    def artifacts(self) -> Path:
        return (self.root / "artifacts").resolve()

    def study_dir(self, study: str) -> Path:
        return within(self.root, self.root / "studies" / check_name("study", study))


@dataclass
class TrialOutcome:
    number: int
    policy: Policy
    objective: float
    decision: str  # promoted / rolled_back / pruned / failed
    reason: str
    champion_objective: float
    seconds: float  # wall time of the whole trial
    simulation: float = 0.0  # of which waiting for episodes
    label: str = ""  # how to name it: the number, or "<sub-study> #n" in local mode


@dataclass
class SearchResult:
    study: str
    runs: RunsDir
    tracking_uri: str
    start_objective: float
    champion_objective: float
    champion_version: int | None
    champion_policy: Path
    outcomes: list[TrialOutcome] = field(default_factory=list)
    stopped: str = "budget"  # budget / hours / interrupted


class Pruned(Exception):
    pass


@dataclass
class _Pending:
    """A trial asked and submitted, not yet consumed."""

    study: optuna.Study
    trial: optuna.Trial
    policy: Policy
    run_id: str
    stream: Iterator[Any]
    began: float


class EpisodeFailure(Exception):
    pass


def driver_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def alive(driver: str | None) -> bool:
    """Whether the driver that owns a trial or run may still be working on it."""
    if not driver or ":" not in driver:
        return False
    host, pid = driver.rsplit(":", 1)
    if host != socket.gethostname():
        return True  # another machine's driver: not ours to judge
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, ValueError):
        return False
    except PermissionError:
        return True
    return True


class Search:
    def __init__(
        self,
        study: str,
        *,
        trials: int,
        hours: float | None,
        mode: str,
        config: SearchConfig,
        runs: RunsDir,
        execution: Execution,
        storage: str | None = None,
        tracking_uri: str | None = None,
    ) -> None:
        if mode not in ("global", "local", "pareto"):
            raise InputError(f"unknown mode {mode!r}; expected global, local or pareto")
        self.name, self.trials, self.hours, self.mode = study, trials, hours, mode
        self.config, self.runs, self.execution, self.storage_url = config, runs, execution, storage
        self.instrument = Instrument.load(config.scenarios)
        self.start_policy = (
            load_policy(config.start_policy)
            if config.start_policy
            else load_policy(baseline_path())
        )
        # the agent is part of what a study is bound to: its import path and its code
        agent = execution.choice()  # a bad --agent stops here
        first = self.instrument.scenarios[0]
        check_made(agent, setup_for(first, first.agents[0], self.start_policy, 0))
        self.hashes = {
            **self.instrument.hashes(self.start_policy),
            "agent": agent.path,
            "agent_hash": agent.hash,
        }
        self.storage = storage_for(storage, runs.journal)
        self.pareto = Objectives()
        self.folder = runs.study_dir(study)
        self.tracker = Tracker(tracking_uri or runs.tracking_uri, study, runs.artifacts / study)
        self.registry = Registry(self.tracker.uri)
        self.stop: str | None = None
        self._substudies: dict[str, optuna.Study] = {}  # local mode: loaded once each
        self.driver = driver_id()
        self.startup = len(self.instrument.scenarios)  # one round of every scenario

    # --- the loop -------------------------------------------------------------------------------
    def run(self, on_trial: Callable[[TrialOutcome], None] | None = None) -> SearchResult:
        main = open_study(
            self.name, self.storage, self.mode, self.hashes, self.pareto, self.startup
        )
        recovered = self._recover(main)
        self._enqueue_first(main)
        self.tracker.close_stale(alive)
        parent = self.tracker.start_parent(
            self.hashes,
            self.driver,
            {
                "trials": self.trials,
                "hours": self.hours,
                "mode": self.mode,
                "seeds": list(self.config.seeds),
                "scenarios": list(self.config.scenarios),
                "margin": self.config.margin,
                "recovered_trials": recovered,
            },
        )
        version, champion, card = self._champion(parent)
        start_objective = card.objective or 0.0
        began = time.monotonic()
        outcomes: list[TrialOutcome] = []
        previous = signal.signal(signal.SIGINT, self._interrupt)
        status = "FINISHED"
        local: dict[int | None, optuna.Study] = {}  # local mode: one sub-study per champion
        try:
            while True:
                study = main
                if self.mode == "local":
                    if version not in local:
                        local[version] = open_study(
                            local_name(self.name, version),
                            self.storage,
                            self.mode,
                            self.hashes,
                            startup_steps=self.startup,
                        )
                        self._recover(local[version])
                    study = local[version]
                room = self.trials - self._spent(main)
                if room <= 0:
                    break
                if self.hours is not None and time.monotonic() - began >= self.hours * 3600:
                    self.stop = "hours"
                    break
                if self.stop:
                    break
                batch = [
                    self._begin(study, parent, champion) for _ in range(min(self.in_flight(), room))
                ]
                for pending in batch:  # several trials in flight, finished in ask order
                    outcome, new = self._trial(pending, champion, card, version)
                    if new is not None:
                        version, champion, card = new
                    outcomes.append(outcome)
                    self.tracker.champion_step(parent, card.objective, len(outcomes))
                    if on_trial:
                        on_trial(outcome)
        except BaseException:
            status = "KILLED"
            raise
        finally:
            signal.signal(signal.SIGINT, previous)
            self.tracker.finish(parent, status)
        export = self.folder / "champion.yaml"
        promotion_write_export(export, champion)
        return SearchResult(
            self.name,
            self.runs,
            self.tracker.uri,
            start_objective,
            card.objective or 0.0,
            version,
            export,
            outcomes,
            self.stop or "budget",
        )

    def _enqueue_first(self, study: optuna.Study) -> None:
        """The config's `first` policies become the study's first trials (once)."""
        if not self.config.first or study.user_attrs.get("first_enqueued"):
            return
        if self.mode == "local":
            raise InputError("'first' policies seed a global or pareto search, not local mode")
        for path in self.config.first:
            study.enqueue_trial(dict(load_policy(path)), user_attrs={"first": str(path)})
        study.set_user_attr("first_enqueued", True)

    def _interrupt(self, signum: int, frame: Any) -> None:
        if self.stop == "interrupted":
            raise KeyboardInterrupt
        self.stop = "interrupted"  # finish and record the trial in flight, then stop

    def _spent(self, main: optuna.Study) -> int:
        """Trials counted against the budget: the study's, or in local mode all its
        sub-studies' (another driver may have opened new ones; each is loaded once)."""
        if self.mode != "local":
            return counted(main)
        for name in optuna.study.get_all_study_names(storage=self.storage):
            if name.startswith(f"{self.name}@") and name not in self._substudies:
                self._substudies[name] = optuna.load_study(study_name=name, storage=self.storage)
        return sum(counted(study) for study in self._substudies.values())

    def _recover(self, study: optuna.Study) -> list[int]:
        """Trials a dead driver left RUNNING are failed and re-queued once."""
        dead = [
            t
            for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
            if not alive(t.user_attrs.get("driver"))
        ]
        if not dead:
            return []
        return recover(study, {t.number for t in dead})

    # --- the champion -------------------------------------------------------------------------
    def _champion(self, parent: str) -> tuple[int | None, Policy, Scorecard]:
        """The registry's champion (registering the start policy if there is none yet) and
        its scorecard on the selection seeds."""
        with promotion.promotion_lock(self.storage_url, self.runs.root):
            version = self.registry.current_version()  # another driver may have just begun
            if version is None:
                card, records = self._evaluate_whole(self.start_policy, self.config.seeds)
                version = self._register(parent, "start", self.start_policy, card, records, None)
                return version, self.start_policy, card
        version, policy = self.registry.policy(version)
        return version, policy, self._champion_card(policy, self.config.seeds)

    def _champion_card(self, policy: Policy, seeds: tuple[int, ...]) -> Scorecard:
        cache = self.folder / "cache" / f"{policy.hash}-{_seed_key(seeds)}.json"
        if cache.exists():
            card = Scorecard.from_json(json.loads(cache.read_text()))
            if (card.harness, card.instrument) == (
                self.hashes["harness"],
                self.hashes["instrument"],
            ):
                return card
        card, _ = self._evaluate_whole(policy, seeds)
        card.write_json(cache)
        return card

    def _register(
        self,
        run_id: str,
        trial: str,
        policy: Policy,
        card: Scorecard,
        records: list[Any],
        comparison: Any,
    ) -> int:
        """Its traces and report in a folder of the study (studies/S/champions/<trial>-<hash>),
        its artifacts in MLflow, a registry version, and the alias moved."""
        folder = self.folder / "champions" / f"{trial}-{policy.hash}"
        stored = {r.stored_at for r in records} - {None}
        if stored:  # the workers wrote the trial's traces to the shared URI: read them back
            (location,) = stored
            traces = read_traces(location)
        else:  # the traces came back to the driver; they are written here only
            for r in records:
                write_episode(folder, r.scenario, r.seed, r.tables)
            traces = collect(records)
        reports = write_reports(
            card,
            traces,
            folder,
            comparison=comparison,
            title=f"{self.name}: champion from trial {trial}",
        )
        source = self.tracker.log_champion(run_id, policy, card, reports)
        return self.registry.promote(run_id, source, policy, card.objective, self.name, trial)

    # --- one trial --------------------------------------------------------------------------------
    def in_flight(self) -> int:
        """Trials to run at once: as many as the workers can take whole (at least one)."""
        if self.execution.serial:
            return 1
        import ray

        from harness import ensure_ray

        ensure_ray(self.execution.workers, self.execution.address)
        workers = int(ray.cluster_resources().get("CPU", 1))
        return max(1, workers // (len(self.instrument.scenarios) * len(self.config.seeds)))

    def _begin(self, study: optuna.Study, parent: str, champion: Policy) -> _Pending:
        """Ask, sample, open the trial's MLflow run and submit its episodes."""
        began = time.monotonic()
        trial = study.ask()
        trial.set_user_attr("driver", self.driver)
        requeued = trial.user_attrs.get("requeued_from")
        policy = sample(trial, self.mode, champion, self.config.local_step, self.config.local_flips)
        run_id = self.tracker.start_trial(
            parent, trial.number, policy, self.hashes, self.driver, requeued, study.study_name
        )
        jobs = self._jobs(self.config.seeds)
        location = None
        if self.execution.traces_uri is not None:  # every trial's traces, for later queries
            location = join_uri(
                self.execution.traces_uri, study.study_name, f"trial-{trial.number}"
            )
            self.tracker.traces_at(run_id, location)
        return _Pending(study, trial, policy, run_id, self._stream(jobs, policy, location), began)

    def _trial(
        self, pending: _Pending, champion: Policy, champion_card: Scorecard, version: int | None
    ) -> tuple[TrialOutcome, tuple[int | None, Policy, Scorecard] | None]:
        study, trial, policy, run_id = pending.study, pending.trial, pending.policy, pending.run_id
        began = pending.began
        waited = 0.0
        new = None
        try:
            values, records, waited = self._evaluate(
                policy, self.config.seeds, trial, pending.stream
            )
            retried = [f"{r.scenario}/{r.seed}: {r.retried}" for r in records if r.retried]
            if retried:
                self.tracker.retries(run_id, retried)
            card = assemble(
                values, self.instrument.definition, hashes=self.instrument.hashes(policy)
            )
            self._constrain(trial, card)
            judged = promotion.on_selection(
                card, champion_card, self.instrument.definition, self.config.margin
            )
            decision, reason = "rolled_back", judged.reason
            if judged.promote:
                decision, reason, new = self._promote(
                    study.study_name,
                    trial.number,
                    run_id,
                    policy,
                    card,
                    records,
                    judged,
                    champion,
                    version,
                )
            objective = card.objective if card.objective is not None else 0.0
            if self.mode == "pareto":
                study.tell(trial, self._pareto_values(card))
            else:
                study.tell(trial, objective)
            self.tracker.timing(run_id, time.monotonic() - began, waited)
            self.tracker.model_usage(run_id, model_metrics(records, self.execution.agent_options))
            self.tracker.finish_trial(run_id, card, decision, reason, values, policy)
        except Pruned:
            study.tell(trial, state=TrialState.PRUNED)
            objective, decision, reason = math.nan, "pruned", "pruned by the Wilcoxon pruner"
            self.tracker.end_trial(run_id, "pruned", reason, "FINISHED")
        except EpisodeFailure as exc:
            study.tell(trial, state=TrialState.FAIL)
            objective, decision, reason = math.nan, "failed", str(exc)
            self.tracker.end_trial(run_id, "failed", reason, "FAILED")
        except BaseException:
            study.tell(trial, state=TrialState.FAIL)
            self.tracker.end_trial(run_id, "failed", "interrupted", "KILLED")
            raise
        current = new[2].objective if new else champion_card.objective
        label = (
            str(trial.number)
            if study.study_name == self.name
            else f"{study.study_name.split('@', 1)[1]} #{trial.number}"
        )
        outcome = TrialOutcome(
            trial.number,
            policy,
            objective,
            decision,
            reason,
            current or 0.0,
            time.monotonic() - began,
            waited,
            label,
        )
        return outcome, new

    def _jobs(self, seeds: tuple[int, ...]) -> list[Job]:
        """The fixed instance order: seed by seed, every scenario in each, so early
        intermediate values already cover the whole suite."""
        return [Job(s, seed) for seed in seeds for s in self.instrument.scenarios]

    def _evaluate(
        self,
        policy: Policy,
        seeds: tuple[int, ...],
        trial: optuna.Trial | None,
        stream: Iterator[Any] | None = None,
    ) -> tuple[Values, list[Any], float]:
        """Run the instances, score each as it comes back (in fixed order), report it, and
        stop early if the pruner says so. Returns values, episode records and seconds
        waited for episodes."""
        jobs = self._jobs(seeds)
        stream = stream if stream is not None else self._stream(jobs, policy)
        parts: list[Values] = []
        records = []
        waited = 0.0
        try:
            for step in range(len(jobs)):
                t0 = time.monotonic()
                record = next(stream)
                waited += time.monotonic() - t0
                if record.status != "ok":
                    again = f" (after a retry: {record.retried})" if record.retried else ""
                    raise EpisodeFailure(
                        f"episode {record.scenario}/{record.seed} "
                        f"{record.status}: {record.error}{again}"
                    )
                records.append(record)
                part = record.measured  # measured where the episode ran
                parts.append(part)
                if trial is not None and self.mode != "pareto":
                    value = instance_objective(part, self.instrument.definition)
                    if value is not None:
                        trial.report(value, step)
                        if trial.should_prune():
                            raise Pruned
        finally:
            stream.close()  # cancels whatever a pruned trial did not consume
        return merge_values(parts), records, waited

    def _evaluate_whole(
        self, policy: Policy, seeds: tuple[int, ...]
    ) -> tuple[Scorecard, list[Any]]:
        values, records, _ = self._evaluate(policy, seeds, None)
        return assemble(
            values, self.instrument.definition, hashes=self.instrument.hashes(policy)
        ), records

    def _stream(
        self, jobs: list[Job], policy: Policy, location: str | None = None
    ) -> Iterator[Any]:
        """The episodes of one evaluation, each measured where it ran; given a trace
        `location` (a trial's, under the shared trace URI), written there too."""
        return episodes(
            jobs, policy, self.instrument, self.execution, measured=True, traces_uri=location
        )

    def _constrain(self, trial: optuna.Trial, card: Scorecard) -> None:
        """Guardrails as Optuna constraints (feasible when every value is ≤ 0), so best-trial
        queries return only policies that hold them."""
        for name, g in card.guardrails.items():
            over = 0.0 if g.value is None or g.ok else (abs(g.value - g.limit) or 1.0)
            trial.set_constraint(name, over)

    def _pareto_values(self, card: Scorecard) -> list[float]:
        from scorecards import METRICS

        out = []
        for _, names in self.pareto.groups:
            scores = []
            for name in names:
                m = card.metrics.get(name)
                if m is not None:
                    lo, hi = METRICS[name].range
                    x = (m.mean - lo) / (hi - lo)
                    scores.append(x if METRICS[name].direction == "max" else 1 - x)
            out.append(sum(scores) / len(scores) if scores else 0.0)
        return out

    def _promote(
        self,
        study_name: str,
        number: int,
        run_id: str,
        policy: Policy,
        card: Scorecard,
        records: list[Any],
        judged: promotion.Judgement,
        champion: Policy,
        version: int | None,
    ) -> tuple[str, str, tuple[int | None, Policy, Scorecard] | None]:
        """Confirm on fresh seeds and register — under the lock, against the champion of
        that moment (another driver may have promoted meanwhile)."""
        with promotion.promotion_lock(self.storage_url, self.runs.root):
            current = self.registry.current_version()
            if current != version:
                version, champion = self.registry.policy(current)
                judged = promotion.on_selection(
                    card,
                    self._champion_card(champion, self.config.seeds),
                    self.instrument.definition,
                    self.config.margin,
                )
                if not judged.promote:
                    return "rolled_back", f"after a concurrent promotion: {judged.reason}", None
            # fresh per (sub-)study and trial: local mode's sub-studies restart their numbering
            seeds = promotion.confirmation_seeds(
                load_confirmation_start(), study_name, number, self.config.confirmation_seeds
            )
            fresh, _ = self._evaluate_whole(policy, seeds)
            incumbent = self._champion_card(champion, seeds)
            confirmed = promotion.on_confirmation(
                fresh, incumbent, self.instrument.definition, self.config.margin
            )
            if not confirmed.promote:
                return "rolled_back", f"{judged.reason}; {confirmed.reason}", None
            label = str(number) if study_name == self.name else f"{study_name}#{number}"
            version = self._register(run_id, label, policy, card, records, judged.comparison)
        return "promoted", f"{judged.reason}; {confirmed.reason}", (version, policy, card)


def _seed_key(seeds: tuple[int, ...]) -> str:
    import hashlib

    return hashlib.blake2b(",".join(map(str, seeds)).encode(), digest_size=6).hexdigest()


def load_confirmation_start() -> int:
    from scenarios import load_suite

    return load_suite().seeds.confirmation_start


def promotion_write_export(path: Path, policy: Policy) -> None:
    from villagelab.files import atomic_write_bytes

    atomic_write_bytes(path, policy.to_yaml().encode())


__all__ = ["RunsDir", "Search", "SearchResult", "TrialOutcome"]
