"""The companion suite's metrics read an episode's Arrow columns, as the main suite's do:
scoring its episodes turns no table into a DataFrame (which cost 20-80 ms an episode)."""

from __future__ import annotations

import pytest
from golden_scoring import POLICIES, stored_traces, stored_values

from scenarios.suite import load_suite, suite_path
from scorecards._episodes import split_episodes
from scorecards.metrics import METRICS

COMPANION = load_suite(suite_path("companion")).scenarios
APPLICABLE = stored_values()["applicable"]


@pytest.mark.parametrize("policy", POLICIES)
def test_companion_metrics_convert_no_table_to_pandas(policy: str) -> None:
    measured = 0
    for (scenario, _), episode in split_episodes(stored_traces(policy)).items():
        if scenario not in COMPANION:
            continue
        for name in APPLICABLE[scenario]:
            METRICS[name].evaluate(episode)
            measured += 1
        assert episode.frames == {}, (scenario, sorted(episode.frames))
    assert measured > 50  # every companion scenario's metrics, two seeds
