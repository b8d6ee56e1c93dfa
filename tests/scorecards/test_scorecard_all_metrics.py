"""The full scorecard on every kind of episode: degenerate villages, order independence,
no NaN anywhere, and Parquet traces scoring like in-memory ones."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scorecard_traces import answer, fact, frame

from harness.agents.reference.companion.lessons import LessonNote
from harness.engine.declared import declaration
from harness.engine.schema import TABLES, to_table
from scorecards import METRICS, load_definition, score
from scorecards.bench import bench_score, synthetic_traces

HASHES = {"harness": "h", "instrument": "i", "policy": "p"}


def _values(card_json: dict, scenario: str) -> dict[str, float]:
    return {n: m["mean"] for n, m in card_json["scenarios"][scenario].items()}


def test_a_silent_village_scores_zero_not_absent() -> None:
    """Nobody talks, nobody learns: knowledge metrics are 0; rates over statements (false
    certainty, understatement) are absent - silence is no accuracy."""
    others = ["bo", "cy", "di", "ed"]
    traces = {
        "truth": frame("truth", [fact(), fact("bo_leaves", modality="rumor")]),
        "probes": frame(
            "probes",
            [
                answer(a, None, proposition=p)
                for a in others
                for p in ("bakery_closed", "bo_leaves")
            ],
        ),
        "utterances": frame("utterances", []),
        "exposures": frame("exposures", []),
    }
    values = _values(score(traces, load_definition(), hashes=HASHES).to_json(), "public_fact")
    assert values == {
        "reach": 0.0,
        "provenance": 0.0,
        "provenance_origin": 0.0,
        "uncertainty_preservation": 0.0,
        "probe_hallucination": 0.0,
        "milestones": 0.0,
        "help_loops": 0.0,
        "isolation_violations": 0.0,
        "fabrications": 0.0,
    }


def test_an_episode_without_tracked_propositions_has_no_knowledge_metrics() -> None:
    traces = {
        "actions": frame(
            "actions", [{"agent": "ana", "action": "paint"}], scenario="room_two_days"
        ),
        "truth": frame("truth", [], scenario="room_two_days"),
    }
    values = _values(score(traces, load_definition(), hashes=HASHES).to_json(), "room_two_days")
    assert values == {"milestones": 0.0, "help_loops": 0.0}


def test_every_metric_is_present_and_finite_on_a_busy_episode_set() -> None:
    card = score(synthetic_traces(20_000, scenarios=2, seeds=4), load_definition(), hashes=HASHES)
    data = card.to_json()
    json.dumps(data, allow_nan=False)
    assert set(data["metrics"]) == set(METRICS)
    for name, m in card.metrics.items():
        lo, hi = METRICS[name].range
        assert all(lo <= v <= hi and math.isfinite(v) for v in m.per_seed.values()), name
        assert lo <= m.ci_low <= m.mean <= m.ci_high <= hi, name


@pytest.mark.parametrize("seed", [1, 2])
def test_permuting_rows_tables_and_seeds_changes_nothing(seed: int) -> None:
    traces = synthetic_traces(12_000, scenarios=2, seeds=12, rng_seed=seed)  # 12: bootstrap
    reference = score(traces, load_definition(), hashes=HASHES).to_json()
    rng = np.random.default_rng(seed)
    shuffled = {
        name: t.sample(frac=1.0, random_state=int(rng.integers(1 << 31)))
        for name, t in reversed(list(traces.items()))
    }
    assert score(shuffled, load_definition(), hashes=HASHES).to_json() == reference
    by_seed = {
        name: pd.concat([g for _, g in sorted(t.groupby("seed"), reverse=True)])
        for name, t in traces.items()
    }
    assert score(by_seed, load_definition(), hashes=HASHES).to_json() == reference


def _write(traces: dict[str, pd.DataFrame], root: Path) -> None:
    for name, table in traces.items():
        for (scenario, seed), part in table.groupby(["scenario", "seed"]):
            rows = [
                {k: (None if not isinstance(v, list) and pd.isna(v) else v) for k, v in row.items()}
                for row in part.to_dict("records")
            ]
            folder = root / name / str(scenario)
            folder.mkdir(parents=True, exist_ok=True)
            # the harness's tables, and the one the reference agent declares (lessons)
            schema = TABLES[name] if name in TABLES else declaration(LessonNote).schema()
            pq.write_table(to_table(name, rows, schema), folder / f"{seed}.parquet")


@pytest.mark.parametrize("backend", ["numpy_nullable", "pyarrow", None])
def test_parquet_traces_score_every_metric_like_in_memory(
    tmp_path: Path, backend: str | None
) -> None:
    traces = synthetic_traces(4_000, scenarios=2, seeds=3)
    _write(traces, tmp_path)
    options = {} if backend is None else {"dtype_backend": backend}
    read = {name: pd.read_parquet(tmp_path / name, **options) for name in traces}
    from_disk = score(read, load_definition(), hashes=HASHES).to_json()
    in_memory = score(traces, load_definition(), hashes=HASHES).to_json()
    assert from_disk == in_memory
    assert set(from_disk["metrics"]) == set(METRICS)


def test_the_bench_runs() -> None:
    assert bench_score(2_000, scenarios=2, seeds=3) > 0.0


def test_shared_derivations_give_what_each_metric_computes_alone() -> None:
    """Metrics share derived frames within an episode; none may change what another sees."""
    from scorecards._episodes import split_episodes

    episodes = split_episodes(synthetic_traces(6_000, scenarios=1, seeds=3))
    for tables in episodes.values():
        alone = {name: m.evaluate(dict(tables)) for name, m in METRICS.items()}
        shared = {name: m.evaluate(tables) for name, m in METRICS.items()}
        again = {name: m.evaluate(tables) for name, m in reversed(METRICS.items())}
        assert alone == shared == again
        assert tables.memo  # something was shared
