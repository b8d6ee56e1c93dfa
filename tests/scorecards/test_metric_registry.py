"""The metric registry: named, directed, bounded metrics whose values are checked."""

from __future__ import annotations

import math

import pytest

from scorecards import METRICS, Metric
from scorecards.metrics import register


def _metric(fn, **over) -> Metric:  # type: ignore[no-untyped-def]
    fields = {
        "name": "probe_metric",
        "direction": "max",
        "range": (0.0, 1.0),
        "definition": "a metric for tests",
        "internal": True,
        "fn": fn,
    }
    return Metric(**{**fields, **over})


def test_exactly_the_three_metrics_are_registered() -> None:
    assert sorted(METRICS) == ["action_consistency", "provenance", "reach"]
    assert all(METRICS[n].name == n for n in METRICS)


@pytest.mark.parametrize(
    "bad",
    [
        {"name": "Reach"},
        {"name": "re@ch"},
        {"direction": "up"},
        {"range": (1.0, 0.0)},
        {"definition": "two\nlines"},
    ],
)
def test_a_malformed_metric_is_refused(bad: dict) -> None:
    with pytest.raises(ValueError):
        _metric(lambda e: 0.0, **bad)


def test_evaluate_refuses_nan_and_out_of_range_and_keeps_none() -> None:
    assert _metric(lambda e: None).evaluate({}) is None
    assert _metric(lambda e: 1).evaluate({}) == 1.0
    with pytest.raises(ValueError, match="outside its range"):
        _metric(lambda e: math.nan).evaluate({})
    with pytest.raises(ValueError, match="outside its range"):
        _metric(lambda e: 1.5).evaluate({})


def test_a_name_registers_once() -> None:
    with pytest.raises(ValueError, match="twice"):
        register(METRICS["reach"])
