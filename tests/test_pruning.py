"""The search's pruner: the asymptotic signed-rank test, the same answer every time."""

from __future__ import annotations

import numpy as np
import optuna
import pytest
from scipy import stats

from experiments.pruning import AsymptoticWilcoxonPruner, signed_rank_p


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


def test_a_clearly_worse_trial_is_pruned_and_a_better_one_is_not():
    study = optuna.create_study(
        direction="maximize", pruner=AsymptoticWilcoxonPruner(p_threshold=0.1)
    )
    good = [0.8, 0.7, 0.9, 0.75, 0.85, 0.8, 0.7, 0.9]
    trial = study.ask()
    for step, v in enumerate(good):
        trial.report(v, step)
    study.tell(trial, sum(good) / len(good))
    worse = study.ask()
    better = study.ask()
    decisions = []
    for step, v in enumerate(good):
        worse.report(v - 0.3, step)
        better.report(v + 0.05, step)
        decisions.append((worse.should_prune(), better.should_prune()))
    assert decisions[-1] == (True, False)
    assert not any(b for _, b in decisions)
