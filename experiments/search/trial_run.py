"""One trial of a search: ask and sample (or repeat, or aim a diagnosis), open its MLflow
run and submit its episodes; then measure, judge, promote or roll back, tell Optuna and close
the run. The search loop (`experiments.search.loop`) drives these; a trial's steps live here."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import optuna
from optuna.trial import TrialState

from experiments.evaluation.dispatch import Execution
from experiments.promotion import rules as promotion
from experiments.promotion.promoter import Attempt, Promoter, Standing
from experiments.search.config import SearchConfig
from experiments.search.diagnosis import diagnose
from experiments.search.pruning import compared_with, refer
from experiments.search.repair import REPAIR_OF, near_misses, repair
from experiments.search.repeats import Ledger, Told, tell_again
from experiments.search.study import Decision, Objectives, record_decision, trial_value
from experiments.search.surface import sample
from experiments.search.trials import (
    EpisodeFailure,
    Evaluator,
    Pending,
    Pruned,
    Stopwatch,
    TrialOutcome,
)
from experiments.stores.journal import held
from experiments.tracking.search_runs import Tracker
from harness.agents.registry import AgentChoice
from harness.engine.store import join_uri
from policies import Policy
from policies.purposes import Shortfall
from scorecards import ScorecardDefinition
from villagelab.interruption import checkpoint

if TYPE_CHECKING:  # the LLM package is imported only for --proposer llm
    from experiments.search.model_proposal import ModelProposer


@dataclass
class TrialRunner:
    """A search's trials, one at a time: what each needs of the search, and its steps."""

    name: str  # the study's
    mode: str
    config: SearchConfig
    surface: tuple[str, ...]
    definition: ScorecardDefinition
    storage: Any
    execution: Execution
    evaluator: Evaluator
    tracker: Tracker
    promoter: Promoter
    pareto: Objectives
    driver: str
    hashes: dict[str, str]  # what the study is bound to, tagged on every trial's run
    parent: str  # the search's MLflow run: each trial's run is its child
    agent: AgentChoice  # what reports its episodes' usage
    measured: Ledger = field(default_factory=Ledger)
    proposer: ModelProposer | None = None  # --proposer llm (its calls counted on `parent`)
    proposed: dict[str, list[str]] = field(default_factory=dict)  # champion → moves asked

    def begin(self, study: optuna.Study, champion: Policy) -> Pending:
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
            earlier = self.measured.earlier(study, policy.hash)
        checkpoint(f"trial {trial.number} asked")
        location = None
        if self.execution.traces_uri is not None:  # every trial's traces, for later queries
            location = join_uri(
                self.execution.traces_uri, study.study_name, f"trial-{trial.number}"
            )
        with clock.part("mlflow"):
            run_id = self.tracker.start_trial(
                self.parent,
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

    def diagnose(self, study: optuna.Study, standing: Standing, tried: set[Shortfall]) -> None:
        """Queue the move aimed at the champion's worst shortfall not tried since the last
        promotion as the next trial; when none is left, the repair of the best near miss
        (`experiments.search.repair`); nothing when no declared parameter can move."""
        asked: dict[str, str] = {}
        if self.proposer is not None:  # --proposer llm: the model's one change, if usable
            from experiments.search.model_proposal import Move  # the LLM package: only here

            tried_here = self.proposed.setdefault(standing.champion.hash, [])
            proposed, note = self.proposer.propose(
                standing.card, self.definition, standing.champion, self.surface, tried_here
            )
            step = len(study.get_trials(deepcopy=False))
            self.tracker.proposer_usage(self.parent, self.proposer.usage(), step)
            if proposed is not None:
                tried_here.append(Move(proposed.moves).label)
                study.enqueue_trial(
                    proposed.params(standing.champion, self.surface),
                    user_attrs={"diagnosis": proposed.describe(), "proposer": note},
                )
                return
            asked = {"proposer": f"{note}; the rules proposed instead"}
        found = diagnose(standing.card, self.definition, standing.champion, self.surface, tried)
        if found is not None:
            tried.add(found.shortfall)
            study.enqueue_trial(
                found.params(standing.champion, self.surface),
                user_attrs={"diagnosis": found.describe(), **asked},
            )
            return
        misses = near_misses(
            study.get_trials(deepcopy=False),
            standing.champion,
            standing.card.objective or 0.0,
            self.definition,
        )
        repaired = repair(misses, self.surface)
        if repaired is None:
            return
        miss, move = repaired
        study.enqueue_trial(
            move.params(miss.policy, self.surface),
            user_attrs={"diagnosis": miss.describe(move), REPAIR_OF: miss.number, **asked},
        )

    def _repeat(self, pending: Pending, standing: Standing) -> TrialOutcome:
        """A proposal equal to a policy already measured: told that result, nothing run."""
        study, trial, earlier = pending.study, pending.trial, pending.repeat_of
        assert earlier is not None
        with pending.clock.part("optuna"), held(self.storage):
            reason = tell_again(study, trial, earlier)
        with pending.clock.part("mlflow"):
            self.tracker.end_trial(
                pending.run_id,
                Decision.REPEATED,
                reason,
                "FINISHED",
                lambda: pending.clock.logged(pending.began),
            )
        return TrialOutcome(
            trial.number,
            pending.policy,
            earlier.objective,
            Decision.REPEATED,
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

    def finish(self, pending: Pending, standing: Standing) -> tuple[TrialOutcome, Standing | None]:
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
            decision, reason = Decision.ROLLED_BACK, judged.reason
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
                for name, amount in over.items():  # Optuna: feasible when every one is ≤ 0
                    trial.set_constraint(name, amount)
                record_decision(trial, decision, reason, objective=objective, violation=violation)
                blocked = promotion.blocked_by_tolerance(
                    judged, card, standing.card, self.definition
                )
                if blocked:  # a higher objective, every guardrail held: refused by tolerance
                    trial.set_user_attr("blocked_by_tolerance", list(blocked))
                value = trial_value(card, self.mode, self.pareto, violation)
                study.tell(trial, value)
                now = new or standing
                if policy.hash == now.champion.hash:  # the champion run whole: the pruner's bar
                    refer(
                        study, policy.hash, now.feasible(self.definition), dict(measured.reported)
                    )
            self.measured.record(
                study, policy.hash, Told(trial.number, decision, objective, violation, value, over)
            )
            checkpoint(f"trial {trial.number} told")
            with clock.part("mlflow"):
                self.tracker.model_usage(run_id, measured.records, self.agent)
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
            objective, decision, reason = (
                math.nan,
                Decision.PRUNED,
                stopped.reason(planned, compared_with(study)),
            )
            if diagnosis:
                reason = f"diagnosis: {diagnosis}; {reason}"
            with clock.part("optuna"), held(self.storage):
                record_decision(trial, decision, reason)
                study.tell(trial, state=TrialState.PRUNED)
            self.measured.record(study, policy.hash, Told.pruned(trial.number, decision))
            checkpoint(f"trial {trial.number} told")
            with clock.part("mlflow"):
                self.tracker.model_usage(run_id, stopped.records, self.agent)
                self.tracker.pruned(
                    run_id, reason, stopped.reported, planned, lambda: clock.logged(began)
                )
        except EpisodeFailure as exc:
            objective, decision, reason = math.nan, Decision.FAILED, str(exc)
            with clock.part("optuna"), held(self.storage):
                record_decision(trial, decision, reason)
                study.tell(trial, state=TrialState.FAIL)
            with clock.part("mlflow"):
                self.tracker.model_usage(run_id, exc.records, self.agent)
                self.tracker.end_trial(
                    run_id, Decision.FAILED, reason, "FAILED", lambda: clock.logged(began)
                )
        except BaseException:
            study.tell(trial, state=TrialState.FAIL)
            self.tracker.end_trial(run_id, Decision.FAILED, "interrupted", "KILLED")
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
