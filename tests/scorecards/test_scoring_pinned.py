"""Scoring gives exactly the pinned values of the suites' episodes (see golden_scoring.py),
from Arrow tables (as workers score) and from DataFrames, whole or one episode at a time."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from golden_scoring import FOLDER, POLICIES, as_json, stored_traces, stored_values

from scorecards import load_definition, measure
from scorecards.bench import synthetic_traces

PINNED = stored_values()


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


def test_synthetic_traces_keep_their_pinned_values() -> None:
    """The synthetic traces reach every metric, nulls and ties included."""
    pinned = json.loads((FOLDER / "synthetic.json").read_text())
    traces = synthetic_traces(20_000, scenarios=2, seeds=6)
    assert as_json(measure(traces, load_definition())) == pinned
    arrow = {k: pa.Table.from_pandas(v, preserve_index=False) for k, v in traces.items()}
    assert as_json(measure(arrow, load_definition())) == pinned
