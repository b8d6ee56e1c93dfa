"""Seed statistics: a mean with an honest confidence interval, and paired differences.

Seeds are the unit of replication. Few seeds get a Student t interval; ten or more get a BCa
bootstrap with a fixed generator, so the same values always give the same interval. Values
are sorted first and summed exactly (`fsum`), so results never depend on seed order.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

CONFIDENCE = 0.95
BOOTSTRAP_MIN_N = 10  # below this, a t interval: a bootstrap of a handful of values is too narrow
BOOTSTRAP_RESAMPLES = 9999
BOOTSTRAP_SEED = 20_240_601

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Interval:
    """A mean over n values and its confidence interval (ci_low == ci_high == mean if n == 1)."""

    mean: float
    ci_low: float
    ci_high: float
    n: int


def mean_ci(
    values: Iterable[float],
    *,
    confidence: float = CONFIDENCE,
    bounds: tuple[float, float] | None = None,
) -> Interval:
    """Mean and confidence interval of per-seed values (t for n < 10, BCa bootstrap above).

    `bounds` is the range the quantity can take: an interval never claims values outside it.
    """
    data = np.sort(np.asarray(list(values), dtype=float))
    n = int(data.size)
    if n == 0:
        raise ValueError("mean_ci needs at least one value")
    if not np.isfinite(data).all():
        raise ValueError(f"mean_ci got a non-finite value: {data.tolist()}")
    if data[0] == data[-1]:  # one value, or all equal: no spread to speak of
        value = float(data[0])
        return Interval(value, value, value, n)
    mean = math.fsum(data.tolist()) / n
    low, high = _bca(data, confidence) if n >= BOOTSTRAP_MIN_N else (math.nan, math.nan)
    if not (math.isfinite(low) and math.isfinite(high)):  # few seeds, or a degenerate bootstrap
        low, high = _t(data, mean, confidence)
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return Interval(mean, low, high, n)


def paired_diff(
    candidate: Mapping[K, float],
    reference: Mapping[K, float],
    *,
    confidence: float = CONFIDENCE,
    span: float | None = None,
) -> Interval:
    """Mean of candidate - reference over their common keys (seeds), with its interval.

    `span` is the width of the quantity's range: a difference lies within ±span.
    """
    common = set(candidate) & set(reference)
    if not common:
        raise ValueError("paired_diff: the two sides share no seed")
    bounds = None if span is None else (-span, span)
    return mean_ci(
        (candidate[k] - reference[k] for k in common), confidence=confidence, bounds=bounds
    )


def _t(data: np.ndarray, mean: float, confidence: float) -> tuple[float, float]:
    n = data.size
    from scipy.special import stdtrit  # Student t quantile, without scipy.stats' import cost

    quantile = float(stdtrit(n - 1, (1 + confidence) / 2))
    half = quantile * float(np.std(data, ddof=1)) / math.sqrt(n)
    return mean - half, mean + half


def _bca(data: np.ndarray, confidence: float) -> tuple[float, float]:
    from scipy import stats as sps  # only ten seeds or more need it (about a second to import)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a degenerate resample warns; we fall back to t
        result = sps.bootstrap(
            (data,),
            np.mean,
            n_resamples=BOOTSTRAP_RESAMPLES,
            confidence_level=confidence,
            method="BCa",
            vectorized=True,
            random_state=BOOTSTRAP_SEED,
        )
    ci = result.confidence_interval
    return float(ci.low), float(ci.high)
