"""The outer loop: Optuna ask/tell over the whitelist, champion and rollback, MLflow record.

One process — this one — alone writes to Optuna and MLflow; episodes run as Ray tasks (or
serially). A trial is promoted only if its objective beats the champion's on the same seeds by
the margin, no guardrail breaks and no metric regresses beyond its tolerance; otherwise it is
recorded as rolled back (DESIGN §7).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend

from harness import atomic_write_json
from harness.store import atomic_write_bytes
from policies import WHITELIST, InputError, Policy, baseline_path, load_policy
from scorecards import Comparison, Scorecard, compare
from scorecards.report import write_reports

from .config import SearchConfig
from .evaluation import Evaluation, Execution, Instrument, evaluate
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
        return self.root / "studies" / study


@dataclass
class Champion:
    policy: Policy
    scorecard: Scorecard
    trial: int | None  # None: the starting policy

    def to_json(self) -> dict[str, Any]:
        return {"policy_values": dict(self.policy), "trial": self.trial,
                "scorecard": self.scorecard.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Champion:
        return cls(Policy(data["policy_values"]), Scorecard.from_json(data["scorecard"]),
                   data["trial"])


@dataclass
class TrialOutcome:
    number: int
    policy: Policy
    objective: float
    decision: str  # promoted / rolled_back / failed
    comparison: Comparison | None
    champion_objective: float
    seconds: float  # wall time of the whole trial: episodes, scoring, Optuna and MLflow


@dataclass
class SearchResult:
    study: str
    runs: RunsDir
    tracking_uri: str
    start_objective: float
    champion: Champion
    outcomes: list[TrialOutcome] = field(default_factory=list)


def sample_policy(trial: optuna.trial.BaseTrial) -> Policy:
    """Draw every whitelisted parameter from its declared range."""
    values: dict[str, Any] = {}
    for p in WHITELIST:
        if p.kind == "bool":
            values[p.name] = trial.suggest_categorical(p.name, [False, True])
        elif p.kind == "int":
            values[p.name] = trial.suggest_int(p.name, int(p.low), int(p.high))  # type: ignore[arg-type]
        elif p.kind == "float":
            values[p.name] = trial.suggest_float(p.name, float(p.low), float(p.high))  # type: ignore[arg-type]
        else:
            values[p.name] = trial.suggest_categorical(p.name, list(p.choices))
    return Policy(values)


def open_study(name: str, storage: str | None, runs: RunsDir, hashes: dict[str, str]) -> optuna.Study:
    """Create or resume the study; a resumed study refuses to go on if the harness moved."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if storage is None:
        runs.root.mkdir(parents=True, exist_ok=True)
        backend: Any = JournalStorage(JournalFileBackend(str(runs.journal)))
    else:
        backend = storage
    study = optuna.create_study(study_name=name, storage=backend, direction="maximize",
                                sampler=optuna.samplers.TPESampler(seed=0), load_if_exists=True)
    recorded = {k: study.user_attrs.get(k) for k in ("harness", "instrument")}
    if recorded["harness"] is None:
        for key in ("harness", "instrument"):
            study.set_user_attr(key, hashes[key])
        return study
    moved = [k for k in ("harness", "instrument") if recorded[k] != hashes[k]]
    if moved:
        raise InputError(
            f"study {name!r} was started with another {' and '.join(moved)} "
            f"({', '.join(f'{k} {recorded[k]} → now {hashes[k]}' for k in moved)}); a study "
            "is bound to a frozen harness and instrument. Start a new study with another "
            "--study name, or restore the code and files the study began with."
        )
    return study


def run_search(study_name: str, *, trials: int, config: SearchConfig, runs: RunsDir,
               execution: Execution, storage: str | None = None,
               tracking_uri: str | None = None,
               on_trial: Callable[[TrialOutcome], None] | None = None) -> SearchResult:
    instrument = Instrument.load(config.scenarios)
    start = load_policy(config.start_policy) if config.start_policy else load_policy(
        baseline_path())
    hashes = instrument.hashes(start)
    study = open_study(study_name, storage, runs, hashes)
    folder = runs.study_dir(study_name)
    tracker = Tracker(tracking_uri or runs.tracking_uri, study_name, runs.artifacts / study_name)
    parent = tracker.start_parent(hashes, {"trials": trials, "seeds": list(config.seeds),
                                           "scenarios": list(config.scenarios)})

    def run(policy: Policy, trial: int | None) -> Evaluation:
        out = folder / "traces" / ("start" if trial is None else f"trial-{trial:05d}")
        return evaluate(policy, instrument, config.seeds, execution, out=out)

    champion_file = folder / "champion.json"
    if champion_file.exists():
        champion = Champion.from_json(json.loads(champion_file.read_text()))
    else:
        champion = Champion(start, run(start, None).scorecard, None)
        _save_champion(folder, champion)
    result = SearchResult(study_name, runs, tracker.uri, champion.scorecard.objective or 0.0,
                          champion)
    try:
        for _ in range(trials):
            began = time.perf_counter()
            trial = study.ask()
            policy = sample_policy(trial)
            outcome = _trial(policy, run(policy, trial.number), champion, instrument,
                             config.margin)
            if outcome.decision == "failed":
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
            else:
                study.tell(trial, outcome.objective)
            reports: tuple[Path, ...] = ()
            if outcome.decision == "promoted":
                champion = Champion(policy, outcome.evaluation.scorecard, trial.number)
                _save_champion(folder, champion)
                reports = write_reports(outcome.evaluation.scorecard, outcome.evaluation.traces,
                                        folder / "reports" / f"trial-{trial.number:05d}",
                                        comparison=outcome.comparison,
                                        title=f"{study_name}: trial {trial.number} promoted")
            tracker.log_trial(parent, trial.number, policy, outcome.evaluation, outcome.decision,
                              hashes, champion.scorecard.objective, reports)
            record = TrialOutcome(trial.number, policy, outcome.objective, outcome.decision,
                                  outcome.comparison, champion.scorecard.objective or 0.0,
                                  time.perf_counter() - began)
            result.outcomes.append(record)
            if on_trial:
                on_trial(record)
    except BaseException:
        tracker.finish(parent, "KILLED")
        raise
    tracker.finish(parent, "FINISHED", champion=champion)
    result.champion = champion
    return result


@dataclass
class _Judged:
    objective: float
    decision: str
    comparison: Comparison | None
    evaluation: Evaluation


def _trial(policy: Policy, evaluation: Evaluation, champion: Champion, instrument: Instrument,
           margin: float) -> _Judged:
    """Judge a trial against the champion, paired on the same seeds."""
    card = evaluation.scorecard
    if evaluation.problems or card.objective is None:
        return _Judged(float("nan"), "failed", None, evaluation)
    comparison = compare(card, champion.scorecard, instrument.definition, margin=margin)
    promoted = comparison.improves and comparison.guardrails_ok and not comparison.regressions
    return _Judged(card.objective, "promoted" if promoted else "rolled_back", comparison,
                   evaluation)


def _save_champion(folder: Path, champion: Champion) -> None:
    """The champion's record, and its policy exported as a YAML file beside it."""
    atomic_write_json(folder / "champion.json", champion.to_json())
    atomic_write_bytes(folder / "champion.yaml", champion.policy.to_yaml().encode())
