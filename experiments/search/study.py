"""The Optuna side of a search: storage, modes, the frozen harness, resume hygiene.

A study lives in a journal file under the runs folder by default, or in any RDB URL
(PostgreSQL) when several drivers share it. It records the harness and instrument hashes and
its mode when created; continuing with other code, files or mode is refused. Distributions
never change within a study: local mode opens a sub-study per champion.
"""

from __future__ import annotations

import hashlib
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar

import optuna
from optuna.study import StudyDirection
from optuna.trial import TrialState

from experiments.search.pruning import AsymptoticWilcoxonPruner
from experiments.stores.creation import get_or_create, optuna_duplicate
from experiments.stores.journal import open_journal
from policies import BUILTIN, InputError, Surface
from scorecards import Scorecard
from villagelab.safe_text import redact, scrub

MODES = ("global", "local", "pareto")
FROZEN = ("harness", "instrument", "agent", "agent_hash")
# the single-objective value's name (in optuna-dashboard's plots): see `trial_value`
VALUE_NAME = "objective (or -violation when a guardrail breaks)"


class Decision(StrEnum):
    """What became of a trial: Optuna's user attribute `decision`, MLflow's tag
    `villagelab.decision`."""

    PROMOTED = "promoted"  # the new champion
    ROLLED_BACK = "rolled_back"  # measured and refused: the champion stays
    PRUNED = "pruned"  # stopped early by the pruner
    REPEATED = "repeated"  # a policy already measured: its result told again, nothing run
    FAILED = "failed"  # an episode failed, or the driver was interrupted


@dataclass(frozen=True)
class Objectives:
    """Pareto mode's objectives: named groups of metrics, each the mean of its normalised
    metrics (higher is better)."""

    groups: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("spread", ("reach", "request_fulfilment")),
        ("faithfulness", ("provenance", "uncertainty_preservation", "probe_recall")),
        ("prudence", ("action_consistency", "containment")),
    )

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.groups]


def storage_for(url: str | None, journal: Path) -> Any:
    """The journal file by default; an RDB storage for a URL. Drivers starting together race
    to create the schema: the loser retries (the winner's tables are then there)."""
    if url is None:  # checked first: a damaged line is reported with its number, not replayed
        return open_journal(journal)
    import sqlalchemy.exc

    for attempt in range(6):
        try:
            return optuna.storages.RDBStorage(url)
        except (
            sqlalchemy.exc.IntegrityError,
            sqlalchemy.exc.OperationalError,
            sqlalchemy.exc.ProgrammingError,
        ) as exc:
            if attempt == 5:  # not a schema race: the database is unreachable or refuses us
                cause = scrub(str(getattr(exc, "orig", None) or exc).strip().splitlines()[0])
                raise InputError(f"cannot use the Optuna storage {redact(url)}: {cause}") from None
            time.sleep(0.5 * (attempt + 1))
        except ImportError as exc:
            raise InputError(
                f"{redact(url)}: no database driver installed "
                f"({exc}); for PostgreSQL: pip install 'villagelab[postgres]'"
            ) from None
    raise AssertionError("unreachable")


def open_study(
    name: str,
    storage: Any,
    mode: str,
    hashes: dict[str, str],
    pareto: Objectives | None = None,
    startup_steps: int = 4,
) -> optuna.Study:
    """Create or continue a study; refuse if the frozen harness, instrument or mode moved.

    The pruner waits `startup_steps` instances (one round of every scenario) before judging.
    """
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)

    sampler = TrialSeededTPE(name)
    if mode == "pareto":
        assert pareto is not None
        pruner = None
        directions = [StudyDirection.MAXIMIZE] * len(pareto.names)
    else:
        pruner = AsymptoticWilcoxonPruner(p_threshold=0.1, n_startup_steps=startup_steps)
        directions = [StudyDirection.MAXIMIZE]

    def find() -> optuna.Study | None:
        try:
            return optuna.load_study(
                study_name=name, storage=storage, sampler=sampler, pruner=pruner
            )
        except KeyError:
            return None

    study = get_or_create(
        "study",
        name,
        find,
        lambda: optuna.create_study(
            study_name=name,
            storage=storage,
            directions=directions,
            sampler=sampler,
            pruner=pruner,
        ),
        optuna_duplicate,
    )
    names = pareto.names if mode == "pareto" and pareto else [VALUE_NAME]
    if study.metric_names != names:
        study.set_metric_names(names)
    frozen = {k: hashes[k] for k in FROZEN if k in hashes}  # what this driver binds it to
    attrs = study.user_attrs
    # the binding is written whole in one attribute first: a driver that starts the study at
    # the same instant never reads half of it (the attributes one by one are for people)
    binding = attrs.get("binding")
    if binding is None and attrs.get("harness") is None:
        study.set_user_attr("binding", {**frozen, "mode": mode})
        for key, value in frozen.items():
            study.set_user_attr(key, value)
        study.set_user_attr("mode", mode)
        return study
    recorded = {k: (binding or attrs).get(k) for k in (*FROZEN, "mode")}
    moved = [k for k in frozen if recorded[k] != frozen[k]]
    if "agent" in moved and recorded["agent"] is not None:  # else: older than agent binding
        raise InputError(
            f"study {name!r} searches policies for the agent {recorded['agent']}, not "
            f"{frozen['agent']}; resume it with --agent {recorded['agent']}, or start a new "
            "study with another --study name"
        )
    if moved:
        what = {
            "harness": "the code of harness, policies, scenarios, scorecards or experiments",
            "instrument": "a scenario file, the scorecard definition or the seed sets",
            "agent": "the agent",
            "agent_hash": "the agent's code",
        }
        raise InputError(
            f"study {name!r} is bound to a frozen harness and instrument, and "
            f"{' and '.join(what[k] for k in moved)} changed since it began "
            f"({', '.join(f'{k} {recorded[k]} → {frozen[k]}' for k in moved)}). Start a new "
            "study with another --study name, or restore what changed."
        )
    if recorded["mode"] != mode:
        raise InputError(
            f"study {name!r} was started in {recorded['mode']!r} mode; continue "
            f"it with --mode {recorded['mode']} or start a new study"
        )
    return study


def trial_value(
    card: Scorecard, mode: str, pareto: Objectives, violation: float
) -> float | list[float]:
    """What Optuna is told: feasibility first. A policy that holds every guardrail scores its
    objective (in [0, 1]); one that breaks a guardrail scores minus its total violation, so
    it ranks below every feasible policy and the smaller violation ranks higher. Optuna's
    best trial — and optuna-dashboard's, which reads the values and ignores constraints —
    is then the best feasible trial."""
    if mode == "pareto":
        return [-violation] * len(pareto.names) if violation > 0 else pareto_values(card, pareto)
    if violation > 0:
        return -violation
    return card.objective if card.objective is not None else 0.0


def pareto_values(card: Scorecard, pareto: Objectives) -> list[float]:
    """Each objective group: the mean of its metrics, normalised to [0, 1], higher better."""
    from scorecards import METRICS

    out = []
    for _, names in pareto.groups:
        scores = []
        for name in names:
            m = card.metrics.get(name)
            if m is not None:
                lo, hi = METRICS[name].range
                x = (m.mean - lo) / (hi - lo)
                scores.append(x if METRICS[name].direction == "max" else 1 - x)
        out.append(sum(scores) / len(scores) if scores else 0.0)
    return out


def trial_seed(study: str, number: int) -> int:
    """The random seed of a study's trial `number`: the same on every driver and every run."""
    digest = hashlib.blake2b(f"{study}|{number}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big")


class TrialSeededTPE(optuna.samplers.TPESampler):
    """TPE whose random draws are seeded afresh for each trial by (study, trial number).

    Trial numbers are handed out by the storage, one to each trial whatever the driver: two
    drivers that start the same new study at once (or a resumed study) draw different first
    random candidates, where a seed per driver would have them draw the very same ones, and
    a study run again from scratch draws the same candidates as before."""

    def __init__(self, study: str) -> None:
        super().__init__(seed=trial_seed(study, -1))
        self._study = study

    def before_trial(self, study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        seed = trial_seed(self._study, trial.number)
        self._rng.rng.seed(seed)  # TPE's own draws (candidates from its estimators)
        self._random_sampler._rng.rng.seed(seed)  # its startup trials' random candidates
        super().before_trial(study, trial)


DRIVER_DEATHS = 3  # a trial whose driver died under it this often is failed for good


def recover(study: optuna.Study, numbers: set[int]) -> list[int]:
    """Fail the given RUNNING trials (a dead driver's) and re-queue each with its parameters;
    returns the numbers failed. A driver's death is not the trial's fault: its candidate is
    evaluated all the same, however often it was interrupted — up to DRIVER_DEATHS, past
    which the trial itself is the likely cause (it keeps killing its driver) and fails for
    good, counted against the budget. Heartbeats exist only under study.optimize, so an
    ask/tell driver does this itself on start-up."""
    failed = []
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if trial.number not in numbers:
            continue
        deaths = int(trial.user_attrs.get("driver_deaths", 0)) + 1
        study._storage.set_trial_user_attr(trial._trial_id, "driver_deaths", deaths)
        study.tell(trial.number, state=TrialState.FAIL)
        failed.append(trial.number)
        if deaths < DRIVER_DEATHS:
            study.enqueue_trial(
                trial.params,
                user_attrs={"requeued_from": trial.number, "driver_deaths": deaths},
                skip_if_exists=False,
            )
    return failed


def told(storage: Any, study: str, tags: dict[str, str]) -> dict[str, Any] | None:
    """The user attributes (decision, reason, objective) of the trial an MLflow run stands
    for, if Optuna recorded it complete or pruned; else None."""
    try:
        name = tags.get("villagelab.substudy") or study
        number = int(tags["villagelab.trial"])
        trials = optuna.load_study(study_name=name, storage=storage).get_trials(deepcopy=False)
    except (KeyError, ValueError):
        return None
    ended = (TrialState.COMPLETE, TrialState.PRUNED)
    return next(
        (dict(t.user_attrs) for t in trials if t.number == number and t.state in ended), None
    )


def counted(study: optuna.Study) -> int:
    """Trials that count against the budget: finished, pruned, or failed and not re-queued."""
    done = 0
    requeued = {t.user_attrs.get("requeued_from") for t in study.get_trials(deepcopy=False)}
    for t in study.get_trials(deepcopy=False):
        finished = t.state in (TrialState.COMPLETE, TrialState.PRUNED)
        if finished or (t.state == TrialState.FAIL and t.number not in requeued):
            done += 1
    return done


@dataclass(frozen=True)
class SubStudy:
    """Local mode's sub-study of a study: one per champion, since its ranges centre on the
    champion. Optuna stores it as `<study>@champion-v<version>`."""

    study: str
    champion_version: int

    MARK: ClassVar[str] = "@champion-v"

    @property
    def name(self) -> str:
        return f"{self.study}{self.MARK}{self.champion_version}"

    @property
    def label(self) -> str:
        """How reports tell its trials from the study's own: `champion-v<version>`."""
        return f"{self.MARK[1:]}{self.champion_version}"

    @classmethod
    def of(cls, name: str) -> SubStudy | None:
        """The sub-study an Optuna study's name stands for; None for any other name."""
        study, mark, version = name.rpartition(cls.MARK)
        return cls(study, int(version)) if mark and study and version.isdigit() else None

    @classmethod
    def within(cls, name: str, study: str) -> bool:
        """Whether `name` is one of `study`'s sub-studies."""
        found = cls.of(name)
        return found is not None and found.study == study


def local_name(study: str, champion_version: int | None) -> str:
    return SubStudy(study, champion_version or 0).name


def enqueue_first(
    study: optuna.Study, first: tuple[str, ...], mode: str, surface: Surface = BUILTIN
) -> None:
    """A config's `first` policies (on the agent's surface) become the study's first trials
    (once)."""
    from policies import load_policy

    if not first or study.user_attrs.get("first_enqueued"):
        return
    if mode == "local":
        raise InputError("'first' policies seed a global or pareto search, not local mode")
    for path in first:
        study.enqueue_trial(dict(load_policy(path, surface)), user_attrs={"first": str(path)})
    study.set_user_attr("first_enqueued", True)


def recover_dead(alive: Callable[[str | None], bool], study: optuna.Study) -> list[int]:
    """Trials a dead driver left RUNNING are failed and re-queued (see `recover`)."""
    dead = [
        t
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        if not alive(t.user_attrs.get("driver"))
    ]
    return recover(study, {t.number for t in dead}) if dead else []


def record_decision(trial: optuna.Trial, decision: Decision, reason: str, **numbers: float) -> None:
    """A trial's decision and its reason as user attributes (seen in optuna-dashboard),
    credentials masked like everything else that is stored."""
    trial.set_user_attr("decision", decision)
    trial.set_user_attr("reason", scrub(reason)[:2000])
    for key, value in numbers.items():
        trial.set_user_attr(key, value)
