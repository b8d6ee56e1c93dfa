"""The outer loop (DESIGN §7): Optuna ask/tell over the whitelist, champion and rollback.

One process — the driver — alone writes to Optuna and MLflow; episodes run as Ray tasks (or
serially). A trial's instances are scored as they come back in a fixed order and reported as
intermediate values, so a pruner can stop a bad trial and cancel its remaining episodes. A
trial is promoted only through `promotion` (paired win on the selection seeds, guardrails,
no regression, then confirmation on fresh seeds) and under a lock; the champion itself lives
in the MLflow registry. The same command resumes the same study.
"""

from __future__ import annotations

import math
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from harness.agents.registry import check_made
from harness.engine.collecting import heap_frozen
from harness.engine.episode import setup_for
from harness.engine.store import join_uri
from policies import InputError, Policy, baseline_path, load_policy
from policies.whitelist import Shortfall
from villagelab.files import atomic_write_bytes
from villagelab.interruption import checkpoint

from . import driving, promotion, records
from .champion import Registry
from .config import SearchConfig
from .diagnosis import diagnose
from .drivers import alive, driver_id
from .evaluation import Execution, Instrument, model_facts
from .journal import held
from .promoter import Attempt, Promoter, Standing
from .runs import RunsDir
from .study import (
    Objectives,
    counted,
    enqueue_first,
    local_name,
    open_study,
    record_decision,
    recover_dead,
    sample,
    searched,
    storage_for,
    told,
    trial_value,
)
from .trials import (
    EpisodeFailure,
    Evaluator,
    Pending,
    Pruned,
    Stopwatch,
    Told,
    TrialOutcome,
)


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
    stopped: str = "budget"  # budget / hours / interrupted / spent (nothing left to run)
    spent: int = 0  # trials the study had counted when this invocation stopped


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
        self.instrument = Instrument.load(config.scenarios, suite=config.suite)
        self.definition = self.instrument.definition
        self.start_policy = (
            load_policy(config.start_policy)
            if config.start_policy
            else load_policy(baseline_path())
        )
        # the agent is part of what a study is bound to: its import path and its code
        agent = execution.choice()  # a bad --agent stops here
        first = self.instrument.scenarios[0]
        check_made(agent, setup_for(first, first.agents[0], self.start_policy, 0))
        self.surface, self.surface_notice = searched(agent, self.instrument.scenarios)
        self.hashes = {
            **self.instrument.hashes(self.start_policy),
            "agent": agent.path,
            "agent_hash": agent.hash,
            **model_facts(execution.agent_options),
        }
        self.storage = storage_for(storage, runs.journal)
        checkpoint("Optuna storage opened")
        self.pareto = Objectives()
        self.folder = runs.study_dir(study)
        self.evaluator = Evaluator(
            self.instrument,
            execution,
            mode,
            self.folder,
            self.hashes,
            lambda: held(self.storage),  # a trial's reports in one journal write
        )
        self.tracking_uri = tracking_uri or runs.tracking_uri
        self.stop: str | None = None
        self._substudies: dict[str, optuna.Study] = {}  # local mode: loaded once each
        self._by_policy: dict[str, dict[str, Told]] = {}  # see _measured
        self.driver = driver_id()
        self.startup = len(self.instrument.scenarios)  # one round of every scenario

    # --- the loop -------------------------------------------------------------------------------
    @driving.guarded  # the journal's driver lock and repair, a vanished study refused
    def run(
        self,
        on_trial: Callable[[TrialOutcome], None] | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> SearchResult:
        main = open_study(
            self.name, self.storage, self.mode, self.hashes, self.pareto, self.startup
        )
        self.main = main
        main.set_user_attr("suite", self.config.suite)  # the morning report measures on it
        recovered = recover_dead(alive, main)
        enqueue_first(main, self.config.first, self.mode)
        self.registry = Registry(self.tracker.uri)
        # a dead driver's runs, closed even with nothing left to run
        self.tracker.close_stale(alive, lambda tags: told(self.storage, self.name, tags))
        if self._spent(main) >= self.trials:  # nothing to run: no parent run, no Ray
            return self._spent_already(main)
        parent = self.tracker.start_parent(
            self.hashes,
            self.driver,
            records.search_params(self, recovered),
            [s.name for s in self.instrument.scenarios],
            self.config.seeds,
        )
        self.promoter = Promoter(
            self.name,
            self.config,
            self.instrument,
            self.start_policy,
            self.evaluator,
            self.tracker,
            self.registry,
            self.runs,
            self.storage_url,
            main,
        )
        standing = self.promoter.standing(parent)
        for notice in (self.surface_notice, self.promoter.infeasible(standing)):
            if notice and on_notice:
                on_notice(notice)
        start_objective = standing.card.objective or 0.0
        began = time.monotonic()
        outcomes: list[TrialOutcome] = []
        previous = signal.signal(signal.SIGINT, self._interrupt)
        status = "FINISHED"
        local: dict[int | None, optuna.Study] = {}  # local mode: one sub-study per champion
        quiet, tried = 0, set()  # trials since the last promotion; shortfalls tried since
        with heap_frozen():  # the stack and the stores outlive every trial: not walked again
            try:
                while True:
                    study = main
                    if self.mode == "local":
                        if standing.version not in local:
                            local[standing.version] = open_study(
                                local_name(self.name, standing.version),
                                self.storage,
                                self.mode,
                                self.hashes,
                                startup_steps=self.startup,
                            )
                            recover_dead(alive, local[standing.version])
                        study = local[standing.version]
                    room = self.trials - self._spent(main)
                    if room <= 0 or self.stop:  # the budget spent, or interrupted
                        break
                    if self.hours is not None and time.monotonic() - began >= self.hours * 3600:
                        self.stop = "hours"
                        break
                    if self.mode == "global" and 0 < self.config.diagnose_after <= quiet:
                        self._diagnose(study, standing, tried)
                        quiet = 0
                    batch = [
                        self._begin(study, parent, standing.champion)
                        for _ in range(min(self.evaluator.in_flight(self.config.seeds), room))
                    ]
                    for pending in batch:  # several trials in flight, finished in ask order
                        outcome, new = self._trial(pending, standing)
                        standing = new or standing
                        outcomes.append(outcome)
                        quiet = 0 if new else quiet + 1
                        if new:
                            tried.clear()
                        self.tracker.champion_step(parent, standing.card.objective, len(outcomes))
                        if on_trial:
                            on_trial(outcome)
            except BaseException:
                status = "KILLED"
                raise
            finally:
                signal.signal(signal.SIGINT, previous)
                self.tracker.finish(parent, status)
        export = self.folder / "champion.yaml"
        atomic_write_bytes(export, standing.champion.to_yaml().encode())
        return SearchResult(
            self.name,
            self.runs,
            self.tracker.uri,
            start_objective,
            standing.card.objective or 0.0,
            standing.version,
            export,
            outcomes,
            self.stop or "budget",
            self._spent(main),
        )

    def _spent_already(self, main: optuna.Study) -> SearchResult:
        """A study whose budget is used up: say so at once, touching nothing."""
        export = self.folder / "champion.yaml"
        version, objective = self.registry.export(export)
        return SearchResult(
            self.name, self.runs, self.tracker.uri, objective or 0.0, objective or 0.0,
            version, export, [], "spent", self._spent(main),
        )  # fmt: skip

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

    # --- one trial --------------------------------------------------------------------------------
    def _begin(self, study: optuna.Study, parent: str, champion: Policy) -> Pending:
        """Ask, sample, open the trial's MLflow run and submit its episodes."""
        began = time.monotonic()
        clock = Stopwatch()
        with clock.part("optuna"), held(self.storage):  # one journal write for all its records
            trial = study.ask()
            trial.set_user_attr("driver", self.driver)
            requeued = trial.user_attrs.get("requeued_from")
            cfg = self.config
            policy = sample(
                trial, self.mode, champion, cfg.local_step, cfg.local_flips, self.surface
            )
            trial.set_user_attr("policy", policy.hash)
            earlier = self._measured(study).get(policy.hash)
        checkpoint(f"trial {trial.number} asked")
        location = None
        if self.execution.traces_uri is not None:  # every trial's traces, for later queries
            location = join_uri(
                self.execution.traces_uri, study.study_name, f"trial-{trial.number}"
            )
        with clock.part("mlflow"):
            run_id = self.tracker.start_trial(
                parent,
                trial.number,
                policy,
                self.hashes,
                self.driver,
                requeued,
                study.study_name,
                location,
            )
        checkpoint(f"trial {trial.number} run opened")
        if earlier is not None:  # measured already: its result is told again, nothing run
            return Pending(study, trial, policy, run_id, None, began, clock, earlier)
        return Pending(
            study,
            trial,
            policy,
            run_id,
            self.evaluator.stream(policy, self.config.seeds, location),
            began,
            clock,
        )

    def _diagnose(self, study: optuna.Study, standing: Standing, tried: set[Shortfall]) -> None:
        """Queue the move aimed at the champion's worst shortfall not tried since the last
        promotion as the next trial (nothing when no declared parameter can move)."""
        found = diagnose(standing.card, self.definition, standing.champion, self.surface, tried)
        if found is None:
            return
        tried.add(found.shortfall)
        study.enqueue_trial(
            found.params(standing.champion, self.surface),
            user_attrs={"diagnosis": found.describe()},
        )

    def _measured(self, study: optuna.Study) -> dict[str, Told]:
        """The study's measured trials (finished or pruned) by policy hash, the first of
        each; read once per study and per invocation, then kept up to date as trials end."""
        if study.study_name not in self._by_policy:
            states = (TrialState.COMPLETE, TrialState.PRUNED)
            found: dict[str, Told] = {}
            for t in study.get_trials(deepcopy=False, states=states):
                key = t.user_attrs.get("policy")
                if key is not None and t.user_attrs.get("decision") != "repeated":
                    found.setdefault(key, Told.of(t))
            self._by_policy[study.study_name] = found
        return self._by_policy[study.study_name]

    def _repeat(self, pending: Pending, standing: Standing) -> TrialOutcome:
        """A proposal equal to a policy already measured: the sampler is told that trial's
        result again (its value and constraints, or pruned), and nothing is run."""
        study, trial, earlier = pending.study, pending.trial, pending.repeat_of
        assert earlier is not None
        reason = (
            f"the policy of trial {earlier.number}, already measured ({earlier.decision}"
            + (f", objective {earlier.objective:.4f}" if not math.isnan(earlier.objective) else "")
            + "): its result told again, nothing run"
        )
        with pending.clock.part("optuna"), held(self.storage):
            if earlier.value is None:
                record_decision(trial, "repeated", reason)
                study.tell(trial, state=TrialState.PRUNED)
            else:
                for name, value in earlier.constraints.items():
                    trial.set_constraint(name, value)
                numbers = {"objective": earlier.objective, "violation": earlier.violation}
                record_decision(trial, "repeated", reason, **numbers)
                study.tell(trial, earlier.value)
        with pending.clock.part("mlflow"):
            self.tracker.end_trial(
                pending.run_id,
                "repeated",
                reason,
                "FINISHED",
                lambda: pending.clock.logged(pending.began),
            )
        return TrialOutcome(
            trial.number,
            pending.policy,
            earlier.objective,
            "repeated",
            reason,
            standing.card.objective or 0.0,
            time.monotonic() - pending.began,
            0.0,
            self._label(study, trial),
            earlier.violation == 0,
        )

    def _label(self, study: optuna.Study, trial: optuna.Trial) -> str:
        if study.study_name == self.name:
            return str(trial.number)
        return f"{study.study_name.split('@', 1)[1]} #{trial.number}"

    def _trial(self, pending: Pending, standing: Standing) -> tuple[TrialOutcome, Standing | None]:
        if pending.repeat_of is not None:
            return self._repeat(pending, standing), None
        study, trial, policy, run_id = pending.study, pending.trial, pending.policy, pending.run_id
        diagnosis = trial.user_attrs.get("diagnosis")  # the shortfall and move it answers
        began, clock = pending.began, pending.clock
        waited = 0.0
        new = None
        feasible = True
        try:
            measured = self.evaluator.measure(
                policy, self.config.seeds, trial, pending.stream, clock
            )
            waited = measured.waited
            retried = [f"{r.scenario}/{r.seed}: {r.retried}" for r in measured.records if r.retried]
            if retried:
                with clock.part("mlflow"):
                    self.tracker.retries(run_id, retried)
            with clock.part("scoring"):
                card = self.evaluator.scorecard(policy, measured.values)
                over = promotion.violations(card, self.definition)
                feasible = not any(over.values())
                judged = promotion.on_selection(
                    card, standing.card, self.definition, self.config.margin, standing.anchor_apart
                )
            decision, reason = "rolled_back", judged.reason
            if judged.promote:
                with clock.part("promotion"):  # confirmation episodes, the registry, the lock
                    decision, reason, new = self.promoter.attempt(
                        Attempt(
                            run_id,
                            study.study_name,
                            trial.number,
                            policy,
                            card,
                            measured.records,
                            judged,
                        ),
                        standing,
                    )
            if diagnosis:
                reason = f"diagnosis: {diagnosis}; {reason}"
            objective = card.objective if card.objective is not None else 0.0
            violation = math.fsum(over.values())
            with clock.part("optuna"), held(self.storage):  # one journal write
                for name, value in over.items():  # Optuna: feasible when every value is ≤ 0
                    trial.set_constraint(name, value)
                record_decision(trial, decision, reason, objective=objective, violation=violation)
                blocked = promotion.blocked_by_tolerance(
                    judged, card, standing.card, self.definition
                )
                if blocked:  # a higher objective, every guardrail held: refused by tolerance
                    trial.set_user_attr("blocked_by_tolerance", list(blocked))
                value = trial_value(card, self.mode, self.pareto, violation)
                study.tell(trial, value)
            self._measured(study).setdefault(
                policy.hash, Told(trial.number, decision, objective, violation, value, over)
            )
            checkpoint(f"trial {trial.number} told")
            with clock.part("mlflow"):
                self.tracker.model_usage(run_id, measured.records, self.execution.agent_options)
                self.tracker.finish_trial(
                    run_id,
                    card,
                    decision,
                    reason,
                    measured.values,
                    policy,
                    champion=standing.card,
                    comparison=judged.comparison,
                    reported=measured.reported,
                    violation=violation,
                    optuna_value=value if isinstance(value, float) else min(value),
                    timing=lambda: clock.logged(began),
                )
        except Pruned as stopped:
            planned = len(self.evaluator.jobs(self.config.seeds))
            objective, decision, reason = math.nan, "pruned", stopped.reason(planned)
            if diagnosis:
                reason = f"diagnosis: {diagnosis}; {reason}"
            with clock.part("optuna"), held(self.storage):
                record_decision(trial, decision, reason)
                study.tell(trial, state=TrialState.PRUNED)
            self._measured(study).setdefault(
                policy.hash, Told(trial.number, decision, math.nan, math.nan, None, {})
            )
            checkpoint(f"trial {trial.number} told")
            with clock.part("mlflow"):
                self.tracker.model_usage(run_id, stopped.records, self.execution.agent_options)
                self.tracker.pruned(
                    run_id, reason, stopped.reported, planned, lambda: clock.logged(began)
                )
        except EpisodeFailure as exc:
            objective, decision, reason = math.nan, "failed", str(exc)
            with clock.part("optuna"), held(self.storage):
                record_decision(trial, decision, reason)
                study.tell(trial, state=TrialState.FAIL)
            with clock.part("mlflow"):
                self.tracker.model_usage(run_id, exc.records, self.execution.agent_options)
                self.tracker.end_trial(
                    run_id, "failed", reason, "FAILED", lambda: clock.logged(began)
                )
        except BaseException:
            study.tell(trial, state=TrialState.FAIL)
            self.tracker.end_trial(run_id, "failed", "interrupted", "KILLED")
            raise
        current = (new or standing).card.objective
        label = self._label(study, trial)
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
            feasible,
        )
        return outcome, new


__all__ = ["RunsDir", "Search", "SearchResult", "Standing", "TrialOutcome"]
