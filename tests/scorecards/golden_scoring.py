"""Pinned scoring: stored traces of the suites' episodes and the metric values they scored.

The traces (both suites, seeds 0-1, careful and baseline, as the reference agent wrote them)
are stored as Parquet, one file per table and policy, with the values the pandas metrics gave
when they were written. Faster scoring must give exactly these values, so nothing changes
meaning. `python -m tests.scorecards.golden_scoring` rewrites them, and the synthetic
traces' values: do that only when the trace schema changes, and only with metrics whose values
are already checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

FOLDER = Path(__file__).with_name("golden_scoring")
POLICIES = ("careful", "baseline")
SEEDS = (0, 1)


def stored_traces(policy: str) -> dict[str, pa.Table]:
    """The stored episodes of one policy, one Arrow table per trace table."""
    return {p.stem: pq.read_table(p) for p in sorted((FOLDER / policy).glob("*.parquet"))}


def stored_values() -> dict:
    """{"applicable": scenario → metrics, "values": policy → scenario → metric → seed → value}."""
    return json.loads((FOLDER / "values.json").read_text())


def write(*, traces: bool = True) -> None:  # pragma: no cover - run by hand
    from harness import Episode
    from harness.agents import AGENT_KINDS
    from policies import load_policy
    from scenarios import load_scenario
    from scenarios.suite import load_suite, suite_path
    from scorecards import load_definition, measure
    from scorecards.bench import synthetic_traces

    root = Path(__file__).resolve().parents[2]
    names = [n for s in ("main", "companion") for n in load_suite(suite_path(s)).scenarios]
    applicable = {n: list(load_scenario(n).metrics) for n in names}
    values: dict = {}
    for policy_name in POLICIES:
        if not traces:
            frames = {k: v.to_pandas() for k, v in stored_traces(policy_name).items()}
            values[policy_name] = measure(frames, load_definition(), applicable)
            continue
        policy = load_policy(root / "policies" / f"{policy_name}.yaml")
        runs = [
            Episode(load_scenario(n), policy, seed, AGENT_KINDS["reference"]).run()
            for n in names
            for seed in SEEDS
        ]
        (FOLDER / policy_name).mkdir(parents=True, exist_ok=True)
        for table in runs[0]:
            pq.write_table(
                pa.concat_tables(r[table] for r in runs),
                FOLDER / policy_name / f"{table}.parquet",
                compression="zstd",
                compression_level=19,
            )
        frames = {k: v.to_pandas() for k, v in stored_traces(policy_name).items()}
        values[policy_name] = measure(frames, load_definition(), applicable)
    text = json.dumps({"applicable": applicable, "values": values}, indent=1, sort_keys=True)
    (FOLDER / "values.json").write_text(text + "\n")
    synthetic = measure(synthetic_traces(20_000, scenarios=2, seeds=6), load_definition())
    text = json.dumps(as_json(synthetic), indent=1, sort_keys=True)
    (FOLDER / "synthetic.json").write_text(text + "\n")


def as_json(values: dict) -> dict:
    """Measured values as JSON reads them back: seeds as strings."""
    return {
        sc: {m: {str(s): v for s, v in per.items()} for m, per in ms.items()}
        for sc, ms in values.items()
    }


if __name__ == "__main__":  # pragma: no cover
    import sys

    write(traces="--values" not in sys.argv[1:])
