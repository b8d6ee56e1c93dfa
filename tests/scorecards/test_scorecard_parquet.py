"""Scoring traces as the harness writes them: Arrow schema → Parquet folders → pandas."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from scorecard_traces import concat, episode

from scorecards import load_definition, score

schema = pytest.importorskip("harness.engine.schema")  # the trace contract (design §4)

HASHES = {"harness": "h", "instrument": "i", "policy": "p"}


def _write(traces: dict[str, pd.DataFrame], root: Path) -> None:
    for name, frame in traces.items():
        for (scenario, seed), part in frame.groupby(["scenario", "seed"]):
            rows = [
                {
                    k: (None if v is None or (not isinstance(v, list) and pd.isna(v)) else v)
                    for k, v in row.items()
                }
                for row in part.to_dict("records")
            ]
            folder = root / "traces" / name / str(scenario)
            folder.mkdir(parents=True, exist_ok=True)
            pq.write_table(schema.to_table(name, rows), folder / f"{seed}.parquet")


@pytest.mark.parametrize("backend", ["numpy_nullable", "pyarrow", None])
def test_parquet_traces_score_like_in_memory_ones(tmp_path: Path, backend: str | None) -> None:
    traces = concat(
        episode("alpha", 0, knowers=2, named=1, decided=2, in_line=1),
        episode("alpha", 1, knowers=3, named=3),
        episode("beta", 0, knowers=0, named=0, decided=1, in_line=1),
    )
    _write(traces, tmp_path)
    options = {} if backend is None else {"dtype_backend": backend}
    read = {name: pd.read_parquet(tmp_path / "traces" / name, **options) for name in traces}
    from_disk = score(read, load_definition(), hashes=HASHES)
    in_memory = score(traces, load_definition(), hashes=HASHES)
    assert from_disk.to_json() == in_memory.to_json()
    assert from_disk.scenarios["alpha"]["reach"].per_seed == {0: 0.5, 1: 0.75}
    assert from_disk.scenarios["beta"]["action_consistency"].per_seed == {0: 1.0}
