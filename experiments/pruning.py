"""The search's pruner: Optuna's Wilcoxon pruner with the asymptotic test only.

Optuna's `WilcoxonPruner` calls `scipy.stats.wilcoxon`, which takes an exact or permutation
test on few or tied differences: 1.7–2.4 s a trial here, and a decision that then rests on
resampling. This one computes the signed-rank statistic (zeros split, ties averaged, the
variance corrected for ties) and its normal approximation: milliseconds, and the same
answer for the same values everywhere. The rest of the decision is Optuna's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import optuna
from optuna.study import StudyDirection


def signed_rank_p(differences: Sequence[float], alternative: str) -> float:
    """One-sided p of the Wilcoxon signed-rank test, normal approximation, `zsplit` zeros.

    `alternative` "less": the differences tend below 0; "greater": above. 1.0 when every
    difference is equal (no variance: nothing to conclude).
    """
    d = [float(x) for x in differences]
    n = len(d)
    order = sorted(range(n), key=lambda i: abs(d[i]))
    ranks = [0.0] * n
    tie_term = 0.0
    i = 0
    while i < n:  # average ranks over ties in |d|
        j = i
        while j + 1 < n and abs(d[order[j + 1]]) == abs(d[order[i]]):
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j + 2) / 2
        t = j - i + 1
        tie_term += t**3 - t
        i = j + 1
    r_plus = sum(r for r, x in zip(ranks, d, strict=True) if x > 0)
    r_plus += sum(r for r, x in zip(ranks, d, strict=True) if x == 0) / 2  # zeros split
    mean = n * (n + 1) / 4
    variance = n * (n + 1) * (2 * n + 1) / 24 - tie_term / 48
    if variance <= 0:
        return 1.0
    z = (r_plus - mean) / math.sqrt(variance)
    if alternative == "greater":
        z = -z
    return 0.5 * math.erfc(-z / math.sqrt(2))  # the normal CDF at z


class AsymptoticWilcoxonPruner(optuna.pruners.WilcoxonPruner):
    """`WilcoxonPruner`, deciding with `signed_rank_p` (deterministic, no permutation test)."""

    def prune(self, study: optuna.study.Study, trial: Any) -> bool:
        current = dict(trial.intermediate_values)
        if not current or any(not math.isfinite(v) for v in current.values()):
            return False
        try:
            best = dict(study.best_trial.intermediate_values)
        except ValueError:  # no completed trial yet
            return False
        if not best or any(not math.isfinite(v) for v in best.values()):
            return False
        steps = sorted(set(current) & set(best))
        if len(steps) < max(2, self._n_startup_steps):
            return False
        differences = [current[s] - best[s] for s in steps]
        mean_best = sum(best.values()) / len(best)
        mean_current = sum(current.values()) / len(current)
        if study.direction == StudyDirection.MAXIMIZE:
            alternative, best_is_no_better = "less", mean_best <= mean_current
        else:
            alternative, best_is_no_better = "greater", mean_best >= mean_current
        p = signed_rank_p(differences, alternative)
        # as Optuna's: never prune a trial whose average is already as good as the best's
        return p < self._p_threshold and not best_is_no_better
