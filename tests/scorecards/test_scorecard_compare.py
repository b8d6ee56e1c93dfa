"""`compare`: paired differences on common (scenario, seed), regressions, guardrail breaks."""

from __future__ import annotations

import pytest

from scorecards import (
    Guardrail,
    MetricSummary,
    Scorecard,
    ScorecardDefinition,
    compare,
    load_definition,
)
from scorecards.compare import regressed
from scorecards.stats import Interval

Values = dict[str, dict[str, dict[int, float]]]


def _card(values: Values) -> Scorecard:
    """A scorecard holding only per-scenario values (all that compare reads)."""
    scenarios = {
        sc: {m: MetricSummary.of(v, "max") for m, v in ms.items()} for sc, ms in values.items()
    }
    return Scorecard(None, None, {}, {}, scenarios, {}, "h", "i", "p")


BASE: Values = {
    "alpha": {"reach": {0: 0.6, 1: 0.7, 2: 0.8}, "provenance": {0: 0.5, 1: 0.5, 2: 0.5}},
    "beta": {"reach": {0: 0.4, 1: 0.4, 2: 0.4}, "provenance": {0: 0.9, 1: 0.8, 2: 0.7}},
}


def _shifted(scenario: str, metric: str, by: dict[int, float]) -> Values:
    out = {sc: {m: dict(v) for m, v in ms.items()} for sc, ms in BASE.items()}
    for seed, delta in by.items():
        out[scenario][metric][seed] += delta
    return out


def test_identical_cards_do_not_improve_and_do_not_regress() -> None:
    c = compare(_card(BASE), _card(BASE), load_definition())
    assert (c.objective_diff.mean, c.objective_diff.ci_low, c.objective_diff.ci_high) == (0, 0, 0)
    assert not c.improves and c.guardrails_ok and c.regressions == []
    assert len(c.metrics) == 4  # two scenarios x two metrics present on both sides


def test_a_clear_drop_beyond_tolerance_is_a_regression() -> None:
    worse = _card(_shifted("alpha", "reach", {0: -0.2, 1: -0.2, 2: -0.2}))
    c = compare(worse, _card(BASE), load_definition())
    assert [(r.scenario, r.metric) for r in c.regressions] == [("alpha", "reach")]
    r = c.regressions[0]
    assert r.diff.mean == pytest.approx(-0.2) and r.diff.ci_high == pytest.approx(-0.2)
    # objective: alpha drops by 0.2 / 2 metrics = 0.1 per seed, averaged with beta: -0.05
    assert c.objective_diff.mean == pytest.approx(-0.05)
    assert not c.improves


def test_drops_within_tolerance_or_inside_the_noise_are_not_regressions() -> None:
    small = _card(_shifted("alpha", "reach", {0: -0.03, 1: -0.03, 2: -0.03}))
    assert compare(small, _card(BASE), load_definition()).regressions == []
    noisy = _card(_shifted("alpha", "reach", {0: -0.3, 1: 0.1, 2: -0.1}))
    c = compare(noisy, _card(BASE), load_definition())
    d = next(m for m in c.metrics if (m.scenario, m.metric) == ("alpha", "reach"))
    assert d.diff.mean == pytest.approx(-0.1) and d.diff.ci_high > -0.05 and not d.regressed


def test_improvement_against_margin_on_common_seeds_only() -> None:
    better = _shifted("beta", "provenance", {0: 0.1, 1: 0.1, 2: 0.2})
    better["beta"]["provenance"][7] = 0.0  # a seed the reference lacks: not paired
    c = compare(_card(better), _card(BASE), load_definition())
    # beta's objective rises by diff / 2 metrics; per seed averaged over 2 scenarios: diff / 4
    assert c.objective_diff.n == 3
    assert c.objective_diff.mean == pytest.approx((0.1 + 0.1 + 0.2) / 3 / 4)
    assert c.improves
    assert not compare(_card(better), _card(BASE), load_definition(), margin=0.05).improves


def test_candidate_guardrail_break_is_reported() -> None:
    definition = ScorecardDefinition(
        metrics=("reach", "provenance"),
        weights={"reach": 1, "provenance": 1},
        tolerances={"reach": 0.05, "provenance": 0.05},
        guardrails=(Guardrail(metric="reach", op=">=", limit=0.5, name="reach_floor"),),
    )
    c = compare(_card(BASE), _card(BASE), definition)  # beta's reach mean is 0.4 < 0.5
    assert not c.guardrails_ok and c.guardrail_breaks == ["reach_floor"]
    assert c.guardrails["reach_floor"].value == pytest.approx(0.4)
    assert c.to_json()["guardrail_breaks"] == ["reach_floor"]


def test_regression_rule_for_both_directions() -> None:
    assert regressed("max", Interval(-0.1, -0.14, -0.06, 3), 0.05)
    assert not regressed("max", Interval(-0.1, -0.16, -0.04, 3), 0.05)
    assert regressed("min", Interval(0.1, 0.06, 0.14, 3), 0.05)
    assert not regressed("min", Interval(0.1, 0.04, 0.16, 3), 0.05)


def test_nothing_in_common_is_refused() -> None:
    other = {"gamma": BASE["alpha"]}
    with pytest.raises(ValueError, match="share no"):
        compare(_card(other), _card(BASE), load_definition())
