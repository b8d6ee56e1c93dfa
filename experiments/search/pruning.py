"""The search's pruner: Optuna's Wilcoxon pruner with the asymptotic test only.

Optuna's `WilcoxonPruner` calls `scipy.stats.wilcoxon`, which takes an exact or permutation
test on few or tied differences: 1.7–2.4 s a trial here, and a decision that then rests on
resampling. This one computes the signed-rank statistic (zeros split, ties averaged, the
variance corrected for ties) and its normal approximation: milliseconds, and the same
answer for the same values everywhere. The rest of the decision is Optuna's.

What a trial is compared with is the champion's instance values, not Optuna's best trial's:
a trial is run to the end to be judged against the champion, and the best trial may be one
that promotion refused (a higher objective that did not confirm), which would prune trials
that could still win. While the champion breaks a guardrail nothing is pruned: any trial that
holds every guardrail may replace it, and feasibility is known only at the end.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import optuna
from optuna.study import StudyDirection

REFERENCE = "pruning_reference"  # the study's user attribute: what trials are compared with


def refer(
    study: optuna.Study,
    champion: str,
    feasible: bool,
    instances: dict[int, float] | None = None,
) -> None:
    """Record the champion (its policy hash) as what `study`'s trials are compared with. Its
    instance values, once a trial of it ran every instance, are kept while it stays champion."""
    kept = study.user_attrs.get(REFERENCE) or {}
    if instances is None and kept.get("policy") == champion:
        instances = {int(k): v for k, v in (kept.get("instances") or {}).items()}
    wanted = {
        "policy": champion,
        "feasible": feasible,
        "instances": {str(k): v for k, v in sorted((instances or {}).items())} or None,
    }
    if kept != wanted:
        study.set_user_attr(REFERENCE, wanted)


def reference_values(study: optuna.Study) -> dict[int, float] | None:
    """The instance values a trial is compared with: the champion's when recorded, else the
    best trial's; None when nothing may be pruned (no trial yet, or an infeasible champion)."""
    reference = study.user_attrs.get(REFERENCE)
    if reference is not None and not reference["feasible"]:
        return None
    if reference is not None and reference["instances"]:
        return {int(k): v for k, v in reference["instances"].items()}
    try:
        return dict(study.best_trial.intermediate_values)
    except ValueError:  # no completed trial yet
        return None


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


def compared_with(study: optuna.Study) -> str:
    """What `reference_values` compares a trial with, in words (a pruned trial's reason)."""
    reference = study.user_attrs.get(REFERENCE)
    return "the champion" if reference and reference["instances"] else "the best trial so far"


class AsymptoticWilcoxonPruner(optuna.pruners.WilcoxonPruner):
    """`WilcoxonPruner`, deciding with `signed_rank_p` (deterministic, no permutation test),
    against `reference_values`."""

    def prune(self, study: optuna.study.Study, trial: Any) -> bool:
        current = dict(trial.intermediate_values)
        if not current or any(not math.isfinite(v) for v in current.values()):
            return False
        best = reference_values(study)
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
