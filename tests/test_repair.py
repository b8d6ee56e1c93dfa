"""A plateau's near misses, repaired: the best trial that scored above the champion yet broke a
guardrail is re-proposed with the move declared against its broken guardrail's failure mode,
each near miss once."""

from __future__ import annotations

import optuna

from experiments.search.repair import REPAIR_OF, near_misses, repair
from experiments.search.study import Decision, record_decision
from policies import WHITELIST, load_policy
from policies.purposes import Shortfall
from scorecards import load_definition

from .conftest import ROOT

DEFINITION = load_definition()
CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")
SURFACE = tuple(p.name for p in WHITELIST if p.family not in ("prompt", "llm"))


def measured(
    study: optuna.Study,
    objective: float,
    decision: Decision,
    over: dict[str, float],
    **params: object,
) -> int:
    """A trial told as the search tells one: its values, constraints and decision."""
    trial = study.ask()
    for name, value in params.items():
        trial.suggest_categorical(name, [value])
    for name, amount in over.items():
        trial.set_constraint(name, amount)
    violation = sum(over.values())
    record_decision(trial, decision, "test", objective=objective, violation=violation)
    study.tell(trial, -violation if violation else objective)
    return trial.number


def test_the_best_near_miss_is_repaired_from_its_own_policy_against_its_leak():
    study = optuna.create_study(direction="maximize")
    leaky = {"sharing.respect_privacy": False, "sharing.proactive": 0.9}
    measured(study, 0.70, Decision.ROLLED_BACK, {"containment": 0.0})  # feasible, refused
    below = measured(study, 0.60, Decision.ROLLED_BACK, {"containment": 0.2}, **leaky)
    best = measured(study, 0.84, Decision.ROLLED_BACK, {"containment": 0.15}, **leaky)
    second = measured(study, 0.80, Decision.ROLLED_BACK, {"containment": 0.1}, **leaky)
    misses = near_misses(study.get_trials(deepcopy=False), CAREFUL, 0.755, DEFINITION)
    assert [m.number for m in misses] == [best, second]  # above the champion only, best first
    assert below not in [m.number for m in misses]
    miss, move = repair(misses, SURFACE) or (None, None)
    assert miss is not None and move is not None and miss.number == best
    assert miss.broken == ("containment",) and move.shortfall is Shortfall.LEAKS
    params = move.params(miss.policy, SURFACE)
    assert params["sharing.respect_privacy"] is True
    assert params["sharing.proactive"] == 0.9  # what made it score is kept
    assert params["sharing.privacy_threshold"] < CAREFUL["sharing.privacy_threshold"]
    assert miss.describe(move).startswith(f"repair of trial {best} (objective 0.8400, breaks ")

    # once its repair is queued, the next near miss is the one repaired
    study.enqueue_trial(params, user_attrs={REPAIR_OF: best})
    again = near_misses(study.get_trials(deepcopy=False), CAREFUL, 0.755, DEFINITION)
    assert [m.number for m in again] == [second]


def test_a_near_miss_nothing_on_the_surface_can_repair_is_passed_over():
    study = optuna.create_study(direction="maximize")
    measured(study, 0.9, Decision.ROLLED_BACK, {"containment": 0.1})
    misses = near_misses(study.get_trials(deepcopy=False), CAREFUL, 0.5, DEFINITION)
    assert len(misses) == 1
    assert repair(misses, ("trust.prior",)) is None
    # a pruned or promoted trial is no near miss
    study2 = optuna.create_study(direction="maximize")
    measured(study2, 0.9, Decision.PROMOTED, {"containment": 0.1})
    assert near_misses(study2.get_trials(deepcopy=False), CAREFUL, 0.5, DEFINITION) == []
