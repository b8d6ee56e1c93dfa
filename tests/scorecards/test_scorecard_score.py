"""`score`: per-scenario and overall metrics, objective, guardrails, JSON, order independence."""

from __future__ import annotations

import json
import math
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from scorecard_traces import concat, episode, three_metrics

from scorecards import (
    METRICS,
    Guardrail,
    Metric,
    Scorecard,
    ScorecardDefinition,
    load_definition,
    score,
)

HASHES = {"harness": "h" * 64, "instrument": "i" * 64, "policy": "p" * 64}


def _traces() -> dict[str, pd.DataFrame]:
    """Two scenarios; (reach, provenance, action_consistency) per episode in comments
    (provenance is a share of the audience of 4).

    Scored with `three_metrics()`: the expected objectives below weigh those three only.
    """
    return concat(
        episode("alpha", 0, knowers=2, named=1, decided=1, in_line=1),  # .5, .25, 1
        episode("alpha", 1, knowers=4, named=3),  # 1, .75, absent
        episode("alpha", 2, knowers=0, named=0, decided=2, in_line=0),  # 0, 0, 0
        episode("beta", 0, knowers=1, named=1, decided=2, in_line=1),  # .25, .25, .5
        episode("beta", 1, knowers=2, named=1),  # .5, .25, absent
    )


def _t_ci(values: list[float]) -> tuple[float, float]:
    """The t interval, clipped to the [0, 1] range these quantities can take."""
    mean, n = float(np.mean(values)), len(values)
    half = sps.t.ppf(0.975, n - 1) * np.std(values, ddof=1) / math.sqrt(n)
    return max(0.0, mean - half), min(1.0, mean + half)


def test_per_scenario_values_and_means() -> None:
    card = score(_traces(), three_metrics(), hashes=HASHES)
    alpha, beta = card.scenarios["alpha"], card.scenarios["beta"]
    assert alpha["reach"].per_seed == {0: 0.5, 1: 1.0, 2: 0.0}
    assert alpha["provenance"].per_seed == {0: 0.25, 1: 0.75, 2: 0.0}
    assert alpha["action_consistency"].per_seed == {0: 1.0, 2: 0.0}
    assert beta["action_consistency"].per_seed == {0: 0.5}
    assert alpha["reach"].mean == 0.5
    assert (alpha["reach"].ci_low, alpha["reach"].ci_high) == pytest.approx(_t_ci([0.5, 1, 0]))
    one = beta["action_consistency"]
    assert (one.mean, one.ci_low, one.ci_high) == (0.5, 0.5, 0.5)


def test_overall_metrics_average_scenarios_per_seed() -> None:
    card = score(_traces(), three_metrics(), hashes=HASHES)
    assert card.metrics["reach"].per_seed == {0: 0.375, 1: 0.75, 2: 0.0}
    assert card.metrics["reach"].mean == pytest.approx(0.375)
    assert card.metrics["action_consistency"].per_seed == {0: 0.75, 2: 0.0}
    assert card.metrics["provenance"].direction == "max"


def test_objective_weights_present_metrics_then_averages_scenarios_and_seeds() -> None:
    card = score(_traces(), three_metrics(), hashes=HASHES)
    # alpha: (.5+.25+1)/3, (1+.75)/2, 0 ; beta: (.25+.25+.5)/3, (.5+.25)/2
    alpha = [1.75 / 3, 0.875, 0.0]
    beta = [1 / 3, 0.375]
    per_seed = [(alpha[0] + beta[0]) / 2, (alpha[1] + beta[1]) / 2, alpha[2]]
    assert card.objective_per_seed == pytest.approx(dict(enumerate(per_seed)))
    assert card.objective == pytest.approx(sum(per_seed) / 3)
    assert card.objective_ci == pytest.approx(_t_ci(per_seed))


def test_an_episode_that_did_not_finish_counts_zero_and_is_named() -> None:
    """Stopping where one does badly must not lift the objective: the instance counts 0."""
    from scorecards import measure
    from scorecards.scorecard import assemble

    values = measure(_traces(), three_metrics())
    for per in values["beta"].values():  # beta/1 never finished ...
        per.pop(1, None)
    card = assemble(values, three_metrics(), hashes=HASHES, not_ok=[("beta", 1, "crashed")])
    alpha = [1.75 / 3, 0.875, 0.0]
    beta = [1 / 3, 0.0]  # ... and counts 0
    per_seed = [(alpha[0] + beta[0]) / 2, (alpha[1] + beta[1]) / 2, alpha[2]]
    assert card.objective_per_seed == pytest.approx(dict(enumerate(per_seed)))
    data = card.to_json()
    assert data["episodes_not_ok"] == [{"scenario": "beta", "seed": 1, "status": "crashed"}]
    assert Scorecard.from_json(data) == card


def test_weights_and_min_metrics_are_normalised(monkeypatch: pytest.MonkeyPatch) -> None:
    def mistakes(ep: dict) -> float:  # 2 mistakes per episode on a 0..10 scale, lower better
        return 2.0

    monkeypatch.setitem(
        METRICS,
        "mistakes",
        Metric("mistakes", "min", (0.0, 10.0), "test metric", False, mistakes, ("probes",)),
    )
    definition = ScorecardDefinition(
        metrics=("reach", "mistakes"),
        weights={"reach": 1.0, "mistakes": 3.0},
        tolerances={"reach": 0.0, "mistakes": 0.0},
    )
    card = score(concat(episode("alpha", 0, knowers=2, named=0)), definition, hashes=HASHES)
    assert card.objective == pytest.approx((1.0 * 0.5 + 3.0 * 0.8) / 4)
    assert card.metrics["mistakes"].direction == "min"


def test_guardrails_use_the_worst_scenario_mean() -> None:
    definition = ScorecardDefinition(
        metrics=("reach", "action_consistency"),
        weights={"reach": 1, "action_consistency": 1},
        tolerances={"reach": 0.05, "action_consistency": 0.05},
        guardrails=(
            Guardrail(metric="reach", op=">=", limit=0.4, name="reach_floor"),
            Guardrail(metric="action_consistency", op="<=", limit=0.9),
        ),
    )
    card = score(_traces(), definition, hashes=HASHES)
    floor = card.guardrails["reach_floor"]  # alpha 0.5, beta 0.375: the worst is 0.375
    assert (floor.value, floor.limit, floor.ok, floor.applicable) == (0.375, 0.4, False, True)
    ceiling = card.guardrails["action_consistency"]  # alpha 0.5, beta 0.5
    assert (ceiling.value, ceiling.ok) == (0.5, True)
    assert not card.guardrails_ok


def test_a_guardrail_naming_scenarios_judges_only_those() -> None:
    def floor(*scenarios: str) -> ScorecardDefinition:
        return ScorecardDefinition(
            metrics=("reach",),
            weights={"reach": 1},
            tolerances={"reach": 0.05},
            guardrails=(Guardrail(metric="reach", op=">=", limit=0.45, scenarios=scenarios),),
        )

    # alpha's reach 0.5 holds the floor; beta's 0.375, outside its scenarios, does not count
    alpha = score(_traces(), floor("alpha"), hashes=HASHES).guardrails["reach"]
    assert (alpha.value, alpha.ok, alpha.applicable) == (0.5, True, True)
    both = score(_traces(), floor("alpha", "beta"), hashes=HASHES).guardrails["reach"]
    assert (both.value, both.ok) == (0.375, False)
    elsewhere = score(_traces(), floor("gamma"), hashes=HASHES).guardrails["reach"]
    assert (elsewhere.value, elsewhere.ok, elsewhere.applicable) == (None, True, False)


def test_a_guardrail_on_an_absent_metric_is_not_applicable() -> None:
    definition = ScorecardDefinition(
        metrics=("reach", "action_consistency"),
        weights={"reach": 1, "action_consistency": 1},
        tolerances={"reach": 0, "action_consistency": 0},
        guardrails=(Guardrail(metric="action_consistency", op=">=", limit=0.99),),
    )
    card = score(concat(episode("alpha", 0, knowers=1, named=1)), definition, hashes=HASHES)
    g = card.guardrails["action_consistency"]
    assert (g.value, g.ok, g.applicable) == (None, True, False)
    assert "action_consistency" not in card.metrics
    assert card.to_json()["guardrails"]["action_consistency"] == {
        "value": None,
        "limit": 0.99,
        "ok": True,
        "applicable": False,
    }


def test_a_scenario_without_tracked_propositions_is_listed_but_not_scored() -> None:
    traces = _traces()
    traces["actions"] = pd.concat(
        [
            traces["actions"],
            pd.DataFrame(
                [
                    {
                        "scenario": "room",
                        "seed": 0,
                        "tick": 5,
                        "event_id": 0,
                        "agent": "ana",
                        "action": "paint",
                    }
                ]
            ),
        ],
        ignore_index=True,
    )
    card = score(traces, three_metrics(), hashes=HASHES)
    assert card.scenarios["room"] == {}
    assert card.objective == score(_traces(), three_metrics(), hashes=HASHES).objective


def test_row_and_seed_order_do_not_change_anything() -> None:
    many = [
        episode("alpha", s, knowers=s % 5, named=s % 3, decided=2, in_line=s % 3) for s in range(12)
    ]  # 12 seeds: the bootstrap path
    many += [episode("beta", s, knowers=(s * 3) % 5, named=1) for s in range(4)]
    traces = concat(*many)
    reference = score(traces, load_definition(), hashes=HASHES).to_json()
    rng = np.random.default_rng(7)
    for _ in range(3):
        shuffled = {
            name: t.sample(frac=1.0, random_state=rng.integers(1 << 31))
            for name, t in reversed(traces.items())
        }
        assert score(shuffled, load_definition(), hashes=HASHES).to_json() == reference
    relabelled = concat(*reversed(many))
    assert score(relabelled, load_definition(), hashes=HASHES).to_json() == reference


def test_json_has_the_contract_shape_and_no_nan() -> None:
    card = score(_traces(), three_metrics(), hashes=HASHES)
    data = card.to_json()
    text = json.dumps(data, allow_nan=False)  # raises on NaN or infinity
    assert set(data) == {
        "objective",
        "objective_ci",
        "objective_per_seed",
        "metrics",
        "scenarios",
        "guardrails",
        "harness",
        "instrument",
        "policy",
        "episodes_not_ok",  # none here
    }
    assert data["episodes_not_ok"] == []
    assert set(data["metrics"]["reach"]) == {"mean", "ci_low", "ci_high", "per_seed", "direction"}
    assert data["metrics"]["reach"]["per_seed"] == {"0": 0.375, "1": 0.75, "2": 0.0}
    assert data["scenarios"]["beta"]["action_consistency"]["per_seed"] == {"0": 0.5}
    assert (data["harness"], data["instrument"], data["policy"]) == tuple(HASHES.values())
    assert Scorecard.from_json(json.loads(text)) == card


def test_a_nan_never_reaches_json() -> None:
    card = score(_traces(), three_metrics(), hashes=HASHES)
    with pytest.raises(ValueError, match=r"objective_per_seed\.0"):
        replace(card, objective_per_seed={0: math.nan}).to_json()


def test_write_json_is_atomic(tmp_path: Path) -> None:
    card = score(_traces(), three_metrics(), hashes=HASHES)
    path = tmp_path / "scorecard.json"
    card.write_json(path)
    assert Scorecard.from_json(json.loads(path.read_text())) == card
    broken = replace(card, objective=math.inf)
    with pytest.raises(ValueError):
        broken.write_json(path)
    assert Scorecard.from_json(json.loads(path.read_text())) == card  # old file intact
    assert os.listdir(tmp_path) == ["scorecard.json"]  # no temp file left behind


def test_a_failed_rename_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "scorecard.json"
    path.write_text("old")
    seen: list[str] = []

    def failing_replace(src: str, dst: object) -> None:
        seen.append(os.path.basename(src))
        raise OSError("disk gone")

    monkeypatch.setattr("villagelab.files.os.replace", failing_replace)
    with pytest.raises(OSError, match="disk gone"):
        score(_traces(), three_metrics(), hashes=HASHES).write_json(path)
    assert path.read_text() == "old"
    assert seen and seen[0].startswith(".scorecard.json.")  # hidden temp in the same folder
    assert os.listdir(tmp_path) == ["scorecard.json"]


def test_hashes_are_required_and_empty_traces_refused() -> None:
    with pytest.raises(ValueError, match="policy"):
        score(_traces(), three_metrics(), hashes={"harness": "h", "instrument": "i"})
    empty = {name: t.iloc[0:0] for name, t in _traces().items()}
    with pytest.raises(ValueError, match="no episode"):
        score(empty, three_metrics(), hashes=HASHES)
