"""A decision point decided by two facts together (tests/scenarios/detour_all_of.yaml): the
meadow is right only because the bridge *and* the ford are out. The careful village hears
both and goes; the naive one keeps its plan over the broken bridge."""

from __future__ import annotations

from functools import cache

import pandas as pd

from harness.agents import AGENT_KINDS
from harness.engine.episode import Episode
from policies import load_policy
from scenarios import load_scenario
from scorecards.metrics import METRICS

from .conftest import ROOT

SCENARIO = ROOT / "tests" / "scenarios" / "detour_all_of.yaml"
SEEDS = (0, 1, 2)


@cache
def runs(policy: str) -> tuple[dict[str, pd.DataFrame], ...]:
    scenario = load_scenario(SCENARIO)
    chosen = load_policy(ROOT / "policies" / f"{policy}.yaml")
    return tuple(
        {
            k: v.to_pandas()
            for k, v in Episode(scenario, chosen, s, AGENT_KINDS["reference"]).run().items()
        }
        for s in SEEDS
    )


def mean(policy: str, metric: str) -> float:
    values = [METRICS[metric].evaluate(t) for t in runs(policy)]
    return sum(v for v in values if v is not None) / len(values)


def test_the_condition_is_written_as_ground_truth() -> None:
    (row,) = runs("careful")[0]["decision_points"].itertuples()
    assert pd.isna(row.proposition)  # no single proposition decides it
    assert (row.when, list(row.propositions), list(row.right)) == (
        "all_of",
        ["bridge_out_day2", "ford_out_day2"],
        ["meadow"],
    )
    decided = runs("careful")[0]["actions"].dropna(subset=["decision_point"])
    assert set(decided["decision_point"]) == {"picnic_detour"}
    assert decided["proposition"].isna().all()


def test_careful_goes_to_the_meadow_knowing_both_and_baseline_does_not() -> None:
    careful, baseline = (
        mean("careful", "action_consistency"),
        mean("baseline", "action_consistency"),
    )
    assert careful >= 0.55 and baseline <= 0.1, (careful, baseline)
    # whoever of careful's club heard of both crossings before setting off went to the meadow,
    # bar a plan made from what retrieval brought back
    went = [
        t["actions"].dropna(subset=["decision_point"]).set_index("agent")["target"]
        for t in runs("careful")
    ]
    meadow = sum((w == "meadow").sum() for w in went) / sum(len(w) for w in went)
    assert meadow >= 0.8, meadow
    assert mean("careful", "fabrications") == 0.0  # no right turn without both facts behind it
