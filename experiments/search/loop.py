"""The outer loop (design §7): Optuna ask/tell over the whitelist, champion and rollback.

One process — the driver — alone writes to Optuna and MLflow; episodes run as Ray tasks (or
serially). A trial's instances are scored as they come back in a fixed order and reported as
intermediate values, so a pruner can stop a bad trial and cancel its remaining episodes. A
trial is promoted only through `promotion` (paired win on the selection seeds, guardrails,
no regression, then confirmation on fresh seeds) and under a lock; the champion itself lives
in the MLflow registry. The same command resumes the same study.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import optuna

from experiments.evaluation.dispatch import Execution
from experiments.evaluation.evaluate import Instrument
from experiments.promotion.champion import Registry
from experiments.promotion.promoter import Promoter, Standing
from experiments.search.config import SearchConfig
from experiments.search.drivers import alive, driver_id
from experiments.search.pruning import refer
from experiments.search.repeats import Ledger
from experiments.search.study import (
    Objectives,
    SubStudy,
    counted,
    enqueue_first,
    local_name,
    open_study,
    recover_dead,
    storage_for,
    told,
)
from experiments.search.surface import searched, unscored_on
from experiments.search.trial_run import TrialRunner
from experiments.search.trials import Evaluator, TrialOutcome
from experiments.stores import journal
from experiments.stores.journal import held
from experiments.stores.runs_folder import RunsDir
from experiments.tracking import records
from experiments.tracking.search_runs import Tracker
from harness.agents.registry import check_made
from harness.engine.collecting import heap_frozen
from harness.engine.episode import setup_for
from policies import InputError, baseline_path
from policies.purposes import Shortfall
from villagelab.files import atomic_write_bytes
from villagelab.interruption import checkpoint

if TYPE_CHECKING:  # the LLM package is imported only for --proposer llm
    from experiments.search.model_proposal import ModelProposer


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
        proposer: ModelProposer | None = None,
    ) -> None:
        if mode not in ("global", "local", "pareto"):
            raise InputError(f"unknown mode {mode!r}; expected global, local or pareto")
        self.name, self.trials, self.hours, self.mode = study, trials, hours, mode
        if proposer is not None and mode != "global":
            raise InputError("--proposer llm: diagnoses are proposed in global mode only")
        self.proposer = proposer
        self.config, self.runs, self.execution, self.storage_url = config, runs, execution, storage
        self.instrument = Instrument.load(config.scenarios, suite=config.suite)
        self.definition = self.instrument.definition
        # the agent is part of what a study is bound to: its import path and its code
        agent = self.agent = execution.choice()  # a bad --agent stops here
        self.start_policy = agent.load_policy(config.start_policy or baseline_path())
        first = self.instrument.scenarios[0]
        check_made(agent, setup_for(first, first.agents[0], self.start_policy, 0))
        self.surface, self.surface_notice = searched(
            agent, self.instrument.scenarios, unscored_on(config.suite, config.scenarios)
        )
        self.hashes = {
            **self.instrument.hashes(self.start_policy),
            "agent": agent.path,
            "agent_hash": agent.hash,
            **agent.facts,
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
        self.measured = Ledger()  # policies measured, by study: a repeat is told, not run
        self.driver = driver_id()
        self.startup = len(self.instrument.scenarios)  # one round of every scenario

    # --- the loop -------------------------------------------------------------------------------
    def run(
        self,
        on_trial: Callable[[TrialOutcome], None] | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> SearchResult:
        """Trials until the budget, the hours or an interrupt, each told to `on_trial`; what
        was repaired or is worth knowing told to `on_notice`. The journal's driver lock is
        held throughout; a study whose Optuna record vanished while MLflow holds its trial
        runs is refused before anything runs."""
        with journal.claimed(self.runs.root, self.runs.journal, self.storage_url) as notes:
            if notes:  # the journal changed under the storage opened before: open it again
                self.storage = storage_for(self.storage_url, self.runs.journal)
            for note in notes:
                if on_notice:
                    on_notice(note)
            tracker = Tracker(self.tracking_uri, self.name, self.runs.artifacts / self.name)
            checkpoint("MLflow experiment opened")
            journal.refuse_vanished(self.name, self.storage, tracker, self.storage_url)
            return self._drive(tracker, on_trial, on_notice)

    def _drive(
        self,
        tracker: Tracker,
        on_trial: Callable[[TrialOutcome], None] | None,
        on_notice: Callable[[str], None] | None,
    ) -> SearchResult:
        main = open_study(
            self.name, self.storage, self.mode, self.hashes, self.pareto, self.startup
        )
        main.set_user_attr("suite", self.config.suite)  # the morning report measures on it
        recovered = recover_dead(alive, main)
        enqueue_first(main, self.config.first, self.mode, self.start_policy.surface)
        registry = Registry(tracker.uri)
        # a dead driver's runs, closed even with nothing left to run
        tracker.close_stale(alive, lambda tags: told(self.storage, self.name, tags))
        if self._spent(main) >= self.trials:  # nothing to run: no parent run, no Ray
            return self._spent_already(main, tracker, registry)
        parent = tracker.start_parent(
            self.hashes,
            self.driver,
            self.params(recovered),
            [s.name for s in self.instrument.scenarios],
            self.config.seeds,
        )
        promoter = Promoter(
            self.name,
            self.config,
            self.instrument,
            self.start_policy,
            self.evaluator,
            tracker,
            registry,
            self.runs,
            self.storage_url,
            main,
        )
        standing = promoter.standing(parent)
        refer(main, standing.champion.hash, standing.feasible(self.definition))
        runner = TrialRunner(
            self.name,
            self.mode,
            self.config,
            self.surface,
            self.definition,
            self.storage,
            self.execution,
            self.evaluator,
            tracker,
            promoter,
            self.pareto,
            self.driver,
            self.hashes,
            parent,
            measured=self.measured,
            proposer=self.proposer,
            agent=self.agent,
        )
        for notice in (self.surface_notice, promoter.infeasible(standing)):
            if notice and on_notice:
                on_notice(notice)
        start_objective = standing.card.objective or 0.0
        began = time.monotonic()
        outcomes: list[TrialOutcome] = []
        previous = signal.signal(signal.SIGINT, self._interrupt)
        status = "FINISHED"
        local: dict[int | None, optuna.Study] = {}  # local mode: one sub-study per champion
        quiet, tried = 0, set[Shortfall]()  # trials since the last promotion; shortfalls tried
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
                            refer(
                                local[standing.version],
                                standing.champion.hash,
                                standing.feasible(self.definition),
                            )
                        study = local[standing.version]
                    room = self.trials - self._spent(main)
                    if room <= 0 or self.stop:  # the budget spent, or interrupted
                        break
                    if self.hours is not None and time.monotonic() - began >= self.hours * 3600:
                        self.stop = "hours"
                        break
                    if self.mode == "global" and 0 < self.config.diagnose_after <= quiet:
                        runner.diagnose(study, standing, tried)
                        quiet = 0
                    batch = [
                        runner.begin(study, standing.champion)
                        for _ in range(min(self.evaluator.in_flight(self.config.seeds), room))
                    ]
                    for pending in batch:  # several trials in flight, finished in ask order
                        outcome, new = runner.finish(pending, standing)
                        standing = new or standing
                        outcomes.append(outcome)
                        quiet = 0 if new else quiet + 1
                        if new:
                            tried.clear()
                        tracker.champion_step(parent, standing.card.objective, len(outcomes))
                        if on_trial:
                            on_trial(outcome)
            except BaseException:
                status = "KILLED"
                raise
            finally:
                signal.signal(signal.SIGINT, previous)
                tracker.finish(parent, status)
        export = self.folder / "champion.yaml"
        atomic_write_bytes(export, standing.champion.to_yaml().encode())
        return SearchResult(
            self.name,
            self.runs,
            tracker.uri,
            start_objective,
            standing.card.objective or 0.0,
            standing.version,
            export,
            outcomes,
            self.stop or "budget",
            self._spent(main),
        )

    def _spent_already(
        self, main: optuna.Study, tracker: Tracker, registry: Registry
    ) -> SearchResult:
        """A study whose budget is used up: say so at once, touching nothing."""
        export = self.folder / "champion.yaml"
        version, objective = registry.export(export)
        return SearchResult(
            self.name,
            self.runs,
            tracker.uri,
            objective or 0.0,
            objective or 0.0,
            version,
            export,
            [],
            "spent",
            self._spent(main),
        )

    def params(self, recovered: list[int]) -> dict[str, Any]:
        """What this invocation searches with: its parent run's params."""
        c, e = self.config, self.execution
        return {
            "study": self.name,
            "trials": self.trials,
            "hours": self.hours,
            "mode": self.mode,
            "scenarios": list(c.scenarios),
            "seeds": list(c.seeds),
            "margin": c.margin,
            "confirmation_seeds": c.confirmation_seeds,
            "start_policy": c.start_policy or str(baseline_path()),
            "first": list(c.first),
            "local_step": c.local_step,
            "local_flips": c.local_flips,
            "agent": e.agent,
            "searched_parameters": len(self.surface),
            "storage": records.without_secret(self.storage_url) or str(self.runs.journal),
            "tracking_uri": records.without_secret(self.tracking_uri),
            "execution": "serial" if e.serial else (e.address or "local Ray"),
            "workers": e.workers,
            "traces_uri": records.without_secret(e.traces_uri),
            "recovered_trials": recovered,
            "harness": self.hashes["harness"],
            "instrument": self.hashes["instrument"],
        }

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
            if SubStudy.within(name, self.name) and name not in self._substudies:
                self._substudies[name] = optuna.load_study(study_name=name, storage=self.storage)
        return sum(counted(study) for study in self._substudies.values())


__all__ = ["RunsDir", "Search", "SearchResult", "Standing", "TrialOutcome"]
