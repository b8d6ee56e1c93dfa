"""`score(applicable=...)`: a metric a scenario does not declare is absent for it."""

from __future__ import annotations

import pytest
from scorecard_traces import concat, episode

from scorecards import load_definition, score

HASHES = {"harness": "h", "instrument": "i", "policy": "p"}


def _traces() -> dict:
    return concat(
        episode("alpha", 0, knowers=2, named=1, decided=1, in_line=1),
        episode("alpha", 1, knowers=4, named=3),
        episode("beta", 0, knowers=1, named=1, decided=2, in_line=1),
    )


def test_undeclared_metrics_are_absent_per_scenario() -> None:
    applicable = {
        "alpha": ["reach", "provenance", "help_loops"],
        "beta": {"action_consistency", "reach", "not_in_the_definition"},
    }
    card = score(_traces(), load_definition(), hashes=HASHES, applicable=applicable)
    assert list(card.scenarios["alpha"]) == ["reach", "provenance", "help_loops"]
    assert list(card.scenarios["beta"]) == ["reach", "action_consistency"]
    assert card.metrics["provenance"].per_seed == {0: 0.25, 1: 0.75}  # alpha only
    assert card.metrics["action_consistency"].per_seed == {0: 0.5}  # beta only
    # the objective weighs only what each scenario declares: alpha seed 0 is (.5 + .25) / 2
    # (help_loops weighs 0), beta seed 0 is (.25 + .5) / 2
    assert card.objective_per_seed[0] == pytest.approx(((0.5 + 0.25) / 2 + 0.375) / 2)


def test_without_applicable_every_metric_is_scored_everywhere() -> None:
    card = score(_traces(), load_definition(), hashes=HASHES)
    assert "help_loops" in card.scenarios["beta"]  # never absent: a count of loops
    assert card.scenarios["beta"]["help_loops"].mean == 0.0
    everything = {sc: load_definition().metrics for sc in ("alpha", "beta")}
    assert (
        score(_traces(), load_definition(), hashes=HASHES, applicable=everything).to_json()
        == card.to_json()
    )


def test_a_scenario_missing_from_applicable_is_refused() -> None:
    with pytest.raises(ValueError, match=r"applicable lacks the scenarios \['beta'\]"):
        score(_traces(), load_definition(), hashes=HASHES, applicable={"alpha": ["reach"]})


def test_a_guardrail_on_a_metric_no_scenario_declares_is_not_applicable() -> None:
    applicable = {"alpha": ["reach"], "beta": ["reach"]}
    card = score(_traces(), load_definition(), hashes=HASHES, applicable=applicable)
    g = card.guardrails["help_loops"]
    assert (g.applicable, g.ok, g.value) == (False, True, None)
