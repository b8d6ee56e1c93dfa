"""The metric registry: named, directed, bounded metrics whose values are checked."""

from __future__ import annotations

import math
from typing import get_args

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
        "reads": ("probes",),
    }
    return Metric(**{**fields, **over})


ALL = {
    # name: (direction, range, internal)
    "reach": ("max", (0.0, 1.0), False),
    "provenance": ("max", (0.0, 1.0), False),
    "provenance_origin": ("max", (0.0, 1.0), False),
    "supersession": ("max", (0.0, 1.0), False),
    "uncertainty_preservation": ("max", (0.0, 1.0), False),
    "false_certainty_rate": ("min", (0.0, 1.0), False),
    "understatement_rate": ("min", (0.0, 1.0), False),
    "action_consistency": ("max", (0.0, 1.0), False),
    "stale_action_rate": ("min", (0.0, 1.0), False),
    "time_to_replan": ("min", (0.0, math.inf), False),
    "time_to_replan_group": ("min", (0.0, math.inf), False),
    "containment": ("max", (0.0, 1.0), False),
    "handoff_completeness": ("max", (0.0, 1.0), False),
    "probe_recall": ("max", (0.0, 1.0), False),
    "probe_hallucination": ("min", (0.0, 1.0), False),
    "request_fulfilment": ("max", (0.0, 1.0), False),
    "memory_noise": ("min", (0.0, 1.0), True),  # read from the agent's own memory_ops
    "memory_load": ("min", (0.0, 1.0), True),
    "text_contradiction_rate": ("min", (0.0, 1.0), True),
    "conservation_violations": ("min", (0.0, math.inf), False),
    "isolation_violations": ("min", (0.0, math.inf), False),
    "fabrications": ("min", (0.0, math.inf), False),
    "milestones": ("max", (0.0, math.inf), False),
    "help_loops": ("min", (0.0, math.inf), False),
    # conversations (the companion and support-desk families)
    "commitment_recall": ("max", (0.0, 1.0), False),
    "correction_uptake": ("max", (0.0, 1.0), False),
    "policy_currency": ("max", (0.0, 1.0), False),
    "continuity_after_absence": ("max", (0.0, 1.0), False),
    "crisis_handled": ("max", (0.0, 1.0), False),
    "crisis_false_alarms": ("min", (0.0, 1.0), False),
    "crisis_memory_writes": ("min", (0.0, math.inf), False),
    "customer_privacy_leaks": ("min", (0.0, math.inf), False),
    "bare_numbers": ("min", (0.0, math.inf), False),
    "style_violations": ("min", (0.0, 100.0), False),
    "proactive_over_budget": ("min", (0.0, math.inf), False),
    "holds_without_substitute": ("min", (0.0, math.inf), False),
    "lesson_gate_violations": ("min", (0.0, math.inf), False),
    "introspection_outside_window": ("min", (0.0, math.inf), False),
    # the companion's background layers
    "source_mixups": ("min", (0.0, math.inf), False),
    "reports_out_of_date": ("min", (0.0, math.inf), False),
    "user_model_violations": ("min", (0.0, math.inf), False),
    "opinion_violations": ("min", (0.0, math.inf), False),
    "preference_uptake": ("max", (0.0, 1.0), False),
    # the research family: retractions and conflicting sources
    "retraction_reach": ("max", (0.0, 1.0), False),
    "conflicts_kept": ("max", (0.0, 1.0), False),
}


def test_every_metric_of_the_design_is_registered_with_its_direction_and_range() -> None:
    assert set(METRICS) == set(ALL)
    for name, (direction, bounds, internal) in ALL.items():
        m = METRICS[name]
        assert (m.name, m.direction, m.range, m.internal) == (name, direction, bounds, internal)
        assert m.bounded == math.isfinite(bounds[1])


def test_the_scenario_schema_lists_exactly_the_registered_metrics() -> None:
    model = pytest.importorskip("scenarios.model")
    assert set(get_args(model.MetricName)) == set(METRICS)


@pytest.mark.parametrize(
    "bad",
    [
        {"name": "Reach"},
        {"name": "re@ch"},
        {"direction": "up"},
        {"range": (1.0, 0.0)},
        {"definition": "two\nlines"},
        {"reads": ()},
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
