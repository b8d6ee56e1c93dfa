"""A storm two witnesses think likely (tests/scenarios/storm_two_witnesses.yaml): the engine
tells each origin at its time and modality; the village's word is judged by who heard both
witnesses along separate ways, and who heard one."""

from __future__ import annotations

from functools import cache

import pandas as pd

from harness.agents import AGENT_KINDS
from harness.engine.episode import Episode
from policies import load_policy
from scenarios import load_scenario
from scorecards.metrics import METRICS
from scorecards.metrics._census_rows import census_knowers_rows
from scorecards.metrics._independence import independently_reached
from scorecards.metrics._truth import tracked_rows

from .conftest import ROOT

SCENARIO = ROOT / "tests" / "scenarios" / "storm_two_witnesses.yaml"
SEEDS = (0, 1, 2)


@cache
def runs(policy: str) -> tuple[dict[str, pd.DataFrame], ...]:
    scenario = load_scenario(SCENARIO)
    chosen = load_policy(ROOT / "policies" / f"{policy}.yaml")
    agent = AGENT_KINDS["reference"]
    return tuple(
        {k: v.to_pandas() for k, v in Episode(scenario, chosen, s, agent).run().items()}
        for s in SEEDS
    )


def scores(policy: str, metric: str) -> list[float]:
    values = [METRICS[metric].evaluate(t) for t in runs(policy)]
    return [v for v in values if v is not None]


def test_each_origin_is_told_at_its_time_and_modality_and_written_as_ground_truth() -> None:
    t = runs("careful")[0]
    (row,) = t["truth"].itertuples()
    assert pd.isna(row.origin) and row.modality == "likely"
    assert (list(row.origins), list(row.origin_modalities)) == (["ana", "ben"], ["likely"] * 2)
    assert list(row.origin_ticks) == [9 * 12, 10 * 12]  # five-minute ticks
    first = t["exposures"].sort_values("tick").groupby("agent").first()
    assert first.loc["ana", ["tick", "channel", "modality"]].tolist() == [108, "seen", "likely"]
    assert first.loc["ben", ["tick", "channel", "modality"]].tolist() == [120, "seen", "likely"]


def test_careful_keeps_likely_where_one_witness_reached_and_baseline_hardens_it() -> None:
    careful, baseline = (
        scores("careful", "uncertainty_preservation"),
        scores("baseline", "uncertainty_preservation"),
    )
    assert min(careful) >= 0.8 and sum(baseline) / len(baseline) <= 0.8, (careful, baseline)
    assert all(c > b for c, b in zip(careful, baseline, strict=True)), (careful, baseline)
    # the hardening itself: baseline's speakers state a witness's "likely" as certain on every
    # seed, careful's never
    hardened = scores("careful", "false_certainty_rate"), scores("baseline", "false_certainty_rate")
    assert max(hardened[0]) == 0.0 and min(hardened[1]) > 0.0, hardened
    # the rule is at work: at the census some had heard both witnesses apart, some not
    reached = {
        independently_reached(t, tracked_rows(t)[0], k.agent, k.tick)
        for t in runs("careful")
        for k in census_knowers_rows(t)
    }
    assert reached == {True, False}
