"""The search's pruner: the asymptotic signed-rank test, the same answer every time."""

from __future__ import annotations

import numpy as np
import optuna
import pytest
from scipy import stats

from experiments.search.pruning import (
    AsymptoticWilcoxonPruner,
    refer,
    reference_values,
    signed_rank_p,
)


@pytest.mark.parametrize("alternative", ["less", "greater"])
@pytest.mark.parametrize("case", range(40))
def test_the_p_value_is_scipys_normal_approximation(case, alternative):
    rng = np.random.default_rng(case)
    n = int(rng.integers(3, 40))
    # scores are shares: rounded, so ties and zero differences are common
    d = np.round(rng.normal(-0.05 if case % 2 else 0.0, 0.1, n), int(rng.integers(1, 3)))
    expected = stats.wilcoxon(
        d, alternative=alternative, zero_method="zsplit", method="approx"
    ).pvalue
    assert signed_rank_p(d, alternative) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_no_difference_concludes_nothing():
    assert signed_rank_p([0.0, 0.0, 0.0, 0.0], "less") == pytest.approx(0.5)


def _study_with_a_trial(values: list[float]) -> optuna.Study:
    """A study under the pruner with one completed trial that reported `values`."""
    study = optuna.create_study(
        direction="maximize", pruner=AsymptoticWilcoxonPruner(p_threshold=0.1)
    )
    trial = study.ask()
    for step, v in enumerate(values):
        trial.report(v, step)
    study.tell(trial, sum(values) / len(values))
    return study


def test_a_clearly_worse_trial_is_pruned_and_a_better_one_is_not():
    good = [0.8, 0.7, 0.9, 0.75, 0.85, 0.8, 0.7, 0.9]
    study = _study_with_a_trial(good)
    worse = study.ask()
    better = study.ask()
    decisions = []
    for step, v in enumerate(good):
        worse.report(v - 0.3, step)
        better.report(v + 0.05, step)
        decisions.append((worse.should_prune(), better.should_prune()))
    assert decisions[-1] == (True, False)
    assert not any(b for _, b in decisions)


def test_trials_are_compared_with_the_champion_not_with_the_best_trial():
    """The best trial may be one promotion refused; the champion is what a trial must beat."""
    high = [0.9, 0.95, 0.85, 0.9, 0.92, 0.88, 0.9, 0.93]
    study = _study_with_a_trial(high)  # the best trial, refused
    champion = [v - 0.3 for v in high]
    refer(study, "champion-hash", True, dict(enumerate(champion)))

    def pruned(values: list[float]) -> bool:
        t = study.ask()
        for step, v in enumerate(values):
            t.report(v, step)
        decision = t.should_prune()
        study.tell(t, state=optuna.trial.TrialState.PRUNED)
        return decision

    assert not pruned([v + 0.01 for v in champion])  # worse than the best, better than champion
    assert pruned([v - 0.2 for v in champion])
    # the same champion again keeps its instances; another champion, not yet run whole, does not
    refer(study, "champion-hash", True)
    assert reference_values(study) == dict(enumerate(champion))
    refer(study, "next-champion", True)
    assert reference_values(study) == dict(enumerate(high))  # the best trial's, until it runs


def test_nothing_is_pruned_while_the_champion_breaks_a_guardrail():
    good = [0.8, 0.7, 0.9, 0.75, 0.85, 0.8, 0.7, 0.9]
    study = _study_with_a_trial(good)
    refer(study, "infeasible", False, dict(enumerate(good)))
    worse = study.ask()
    for step, v in enumerate(good):
        worse.report(v - 0.5, step)
    assert not worse.should_prune()  # feasibility is known only at the end
    refer(study, "infeasible", True)  # the same champion, now known to hold them
    assert worse.should_prune()
