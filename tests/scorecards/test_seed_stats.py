"""Seed statistics: t interval for few seeds, BCa for many, degenerate cases exact."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from scorecards import mean_ci, paired_diff
from scorecards.stats import BOOTSTRAP_SEED


def test_t_interval_for_three_seeds() -> None:
    ci = mean_ci([1.0, 2.0, 3.0])
    # mean 2, sd 1, t(0.975, 2) = 4.302652729749464: half width 4.3026527 / sqrt(3)
    assert ci.mean == 2.0
    assert ci.ci_low == pytest.approx(-0.4841377117503, abs=1e-12)
    assert ci.ci_high == pytest.approx(4.4841377117503, abs=1e-12)
    assert ci.n == 3


def test_t_interval_matches_scipy_for_five_seeds() -> None:
    values = [0.2, 0.4, 0.5, 0.6, 0.85]
    low, high = sps.t.interval(0.95, 4, loc=np.mean(values), scale=sps.sem(values))
    ci = mean_ci(values)
    assert (ci.ci_low, ci.ci_high) == (pytest.approx(low), pytest.approx(high))


def test_degenerate_values_give_a_point_interval_never_nan() -> None:
    assert mean_ci([0.7]) == mean_ci([0.7]).__class__(0.7, 0.7, 0.7, 1)
    for values in ([0.3] * 3, [0.3] * 12):
        ci = mean_ci(values)
        assert (ci.mean, ci.ci_low, ci.ci_high) == (0.3, 0.3, 0.3)


def test_many_seeds_use_a_deterministic_bca_bootstrap() -> None:
    values = [0.1, 0.5, 0.3, 0.9, 0.4, 0.45, 0.6, 0.2, 0.55, 0.35, 0.8, 0.5]
    expected = sps.bootstrap(
        (np.sort(values),), np.mean, method="BCa", n_resamples=9999, random_state=BOOTSTRAP_SEED
    ).confidence_interval
    ci = mean_ci(values)
    assert ci.ci_low == pytest.approx(expected.low) and ci.ci_high == pytest.approx(expected.high)
    assert ci.ci_low < ci.mean < ci.ci_high
    assert mean_ci(values[::-1]) == ci  # seed order does not matter
    assert mean_ci(sorted(values)) == ci


def test_few_values_but_no_spread_in_many_resamples_stays_finite() -> None:
    ci = mean_ci([0.0] * 11 + [1.0])
    assert all(math.isfinite(x) for x in (ci.mean, ci.ci_low, ci.ci_high))
    assert ci.mean == pytest.approx(1 / 12)


def test_paired_diff_uses_common_seeds_only() -> None:
    candidate = {0: 0.5, 1: 0.7, 2: 0.9, 3: 1.0}
    reference = {1: 0.5, 2: 0.6, 3: 0.8, 9: 0.1}
    d = paired_diff(candidate, reference)  # differences 0.2, 0.3, 0.2 on seeds 1, 2, 3
    assert d.n == 3
    assert d.mean == pytest.approx(0.7 / 3)
    sd = np.std([0.2, 0.3, 0.2], ddof=1)
    half = sps.t.ppf(0.975, 2) * sd / math.sqrt(3)
    assert (d.ci_low, d.ci_high) == (pytest.approx(0.7 / 3 - half), pytest.approx(0.7 / 3 + half))


def test_paired_diff_of_equal_shifts_is_a_point() -> None:
    d = paired_diff({1: 0.75, 2: 0.5}, {1: 0.5, 2: 0.25})
    assert (d.mean, d.ci_low, d.ci_high) == (0.25, 0.25, 0.25)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError):
        mean_ci([])
    with pytest.raises(ValueError):
        mean_ci([0.1, math.nan])
    with pytest.raises(ValueError, match="share no seed"):
        paired_diff({1: 0.1}, {2: 0.1})


def test_interval_never_leaves_the_range_of_the_quantity() -> None:
    wide = mean_ci([0.0, 1.0, 0.5], bounds=(0.0, 1.0))
    assert (wide.ci_low, wide.ci_high) == (0.0, 1.0) and wide.mean == 0.5
    diff = paired_diff({0: 1.0, 1: 0.0, 2: 1.0}, {0: 0.0, 1: 1.0, 2: 0.0}, span=1.0)
    assert diff.ci_low == -1.0 and diff.ci_high <= 1.0
