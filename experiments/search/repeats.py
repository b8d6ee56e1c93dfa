"""Proposals already measured: a policy a study has run once is told its result again when
the sampler proposes it again, not run again (define-by-run samplers re-propose a policy
they believe in, most of all on a plateau)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import optuna
from optuna.trial import TrialState

from experiments.search.study import Decision, record_decision


@dataclass(frozen=True)
class Told:
    """What a trial that ran told Optuna: enough to tell it again for the same policy."""

    number: int
    decision: Decision
    objective: float  # NaN when pruned
    violation: float  # NaN when pruned
    value: float | list[float] | None  # None when pruned
    constraints: dict[str, float]

    @classmethod
    def pruned(cls, number: int, decision: Decision) -> Told:
        return cls(number, decision, math.nan, math.nan, None, {})

    @classmethod
    def of(cls, t: optuna.trial.FrozenTrial) -> Told:
        decision = Decision(t.user_attrs.get("decision", Decision.PRUNED))
        if t.state != TrialState.COMPLETE:
            return cls.pruned(t.number, decision)
        value = t.values if len(t.values) > 1 else t.value
        attrs = t.user_attrs
        return cls(
            t.number,
            decision,
            float(attrs.get("objective", math.nan)),
            float(attrs.get("violation", 0.0)),
            value,
            t.constraints,
        )


class Ledger:
    """Each study's measured policies by hash (the first trial of each): read from the study
    once per invocation, then kept as trials end."""

    def __init__(self) -> None:
        self._by_study: dict[str, dict[str, Told]] = {}

    def _of(self, study: optuna.Study) -> dict[str, Told]:
        if study.study_name not in self._by_study:
            states = (TrialState.COMPLETE, TrialState.PRUNED)
            found: dict[str, Told] = {}
            for t in study.get_trials(deepcopy=False, states=states):
                key = t.user_attrs.get("policy")
                if key is not None and t.user_attrs.get("decision") != Decision.REPEATED:
                    found.setdefault(key, Told.of(t))
            self._by_study[study.study_name] = found
        return self._by_study[study.study_name]

    def earlier(self, study: optuna.Study, policy: str) -> Told | None:
        return self._of(study).get(policy)

    def record(self, study: optuna.Study, policy: str, told: Told) -> None:
        self._of(study).setdefault(policy, told)


def tell_again(study: optuna.Study, trial: optuna.Trial, earlier: Told) -> str:
    """Tell `trial` what `earlier` was told (value and constraints, or pruned) and record the
    decision 'repeated'; its reason."""
    shown = "" if math.isnan(earlier.objective) else f", objective {earlier.objective:.4f}"
    reason = (
        f"the policy of trial {earlier.number}, already measured ({earlier.decision}{shown}): "
        "its result told again, nothing run"
    )
    if earlier.value is None:
        record_decision(trial, Decision.REPEATED, reason)
        study.tell(trial, state=TrialState.PRUNED)
        return reason
    for name, value in earlier.constraints.items():
        trial.set_constraint(name, value)
    numbers = {"objective": earlier.objective, "violation": earlier.violation}
    record_decision(trial, Decision.REPEATED, reason, **numbers)
    study.tell(trial, earlier.value)
    return reason
