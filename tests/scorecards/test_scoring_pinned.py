"""Scoring gives exactly the pinned values of the suites' episodes (see golden_scoring.py),
from Arrow tables (as workers score) and from DataFrames, whole or one episode at a time."""

from __future__ import annotations

import pyarrow.compute as pc
import pytest
from golden_scoring import POLICIES, stored_traces, stored_values

from scorecards import load_definition, measure

PINNED = stored_values()


def as_json(values: dict) -> dict:
    return {
        sc: {m: {str(s): v for s, v in per.items()} for m, per in ms.items()}
        for sc, ms in values.items()
    }


@pytest.mark.parametrize("policy", POLICIES)
def test_every_metric_of_every_episode_keeps_its_pinned_value(policy: str) -> None:
    tables = stored_traces(policy)
    got = measure(tables, load_definition(), PINNED["applicable"])
    assert as_json(got) == PINNED["values"][policy]
    frames = {k: v.to_pandas() for k, v in tables.items()}
    assert as_json(measure(frames, load_definition(), PINNED["applicable"])) == as_json(got)


@pytest.mark.parametrize("policy", POLICIES)
def test_one_episode_at_a_time_scores_as_all_at_once(policy: str) -> None:
    tables = stored_traces(policy)
    pinned = PINNED["values"][policy]
    for scenario in sorted(pinned):
        for seed in (0, 1):
            one = {
                name: t.filter(
                    pc.and_(pc.equal(t["scenario"], scenario), pc.equal(t["seed"], seed))
                )
                for name, t in tables.items()
            }
            got = as_json(measure(one, load_definition(), PINNED["applicable"]))[scenario]
            want = {
                m: {str(seed): per[str(seed)]}
                for m, per in pinned[scenario].items()
                if str(seed) in per
            }
            assert got == want, (scenario, seed)
