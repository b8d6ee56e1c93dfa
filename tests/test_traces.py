"""Traces: byte-identical for the same inputs, the same on Ray as serial, readable without us."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from harness import TABLE_NAMES, Job, run_ray, run_serial, write_episode
from harness.agents import AGENT_KINDS
from harness.engine.schema import TABLES, trace_names
from policies import Policy, baseline_path, load_policy
from scenarios import load_scenario

REFERENCE = AGENT_KINDS["reference"]


def digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.glob("traces/*/*/*.parquet"))
    }


def write_all(root: Path, records) -> None:
    for r in records:
        assert r.status == "ok", r.error
        write_episode(root, r.scenario, r.seed, r.tables)


@pytest.fixture(scope="module")
def public_fact():
    return load_scenario("public_fact")


@pytest.fixture(scope="module")
def baseline():
    return load_policy(baseline_path())


def test_same_scenario_policy_seed_give_byte_identical_traces(tmp_path, public_fact, baseline):
    for run in ("a", "b"):
        write_all(tmp_path / run, run_serial([Job(public_fact, 3)], baseline, REFERENCE))
    a, b = digests(tmp_path / "a"), digests(tmp_path / "b")
    # the harness's tables and the one the reference agent declares (a character's lessons)
    assert len(a) == len(trace_names(["lessons"])) == len(TABLE_NAMES) + 1 and a == b


def test_different_seeds_give_different_worlds(tmp_path, public_fact, baseline):
    write_all(tmp_path, run_serial([Job(public_fact, 0), Job(public_fact, 1)], baseline, REFERENCE))
    files = digests(tmp_path)
    assert (
        files["traces/events/public_fact/0.parquet"] != files["traces/events/public_fact/1.parquet"]
    )


@pytest.mark.ray
def test_ray_shuffled_matches_serial(tmp_path, ray_cluster, public_fact, baseline):
    jobs = [Job(public_fact, seed) for seed in range(6)]  # more episodes than the 2 workers
    shuffled = jobs[:]
    random.Random(7).shuffle(shuffled)
    assert shuffled != jobs
    write_all(tmp_path / "serial", run_serial(jobs, baseline, REFERENCE))
    parallel = list(run_ray(jobs, baseline, submit_order=shuffled, agent=REFERENCE))
    assert [(r.scenario, r.seed) for r in parallel] == [(j.scenario.name, j.seed) for j in jobs]
    write_all(tmp_path / "ray", parallel)
    assert digests(tmp_path / "serial") == digests(tmp_path / "ray")


def dying(marker: Path, times: int):  # type: ignore[no-untyped-def]
    """An episode function whose worker process dies on its first `times` runs (counted in
    `marker`): what a lost worker or node looks like to the driver. A closure, so Ray ships
    it by value."""

    def episode(scenario, policy, seed, agent):  # type: ignore[no-untyped-def]
        import os

        from harness.engine.runner import _execute

        runs = int(marker.read_text()) if marker.exists() else 0
        marker.write_text(str(runs + 1))
        if runs < times:
            os._exit(1)
        return _execute(scenario, policy, seed, agent)

    return episode


@pytest.mark.ray
def test_a_lost_worker_is_retried_once_and_the_retry_is_recorded(
    tmp_path, ray_cluster, public_fact, baseline
):
    from harness.engine.runner import RayBatch

    (record,) = RayBatch(
        [Job(public_fact, 0)],
        baseline,
        agent=REFERENCE,
        function=dying(tmp_path / "runs", times=1),
    )
    assert record.status == "ok" and record.tables
    assert record.retried is not None and "WorkerCrashedError" in record.retried
    assert record.summary()["retried"] == record.retried  # the manifest's episode list
    (twice,) = RayBatch(
        [Job(public_fact, 0)],
        baseline,
        agent=REFERENCE,
        function=dying(tmp_path / "again", times=2),
    )
    assert twice.status == "failed" and twice.retried is not None  # one retry, then a result
    assert (tmp_path / "again").read_text() == "2"


def test_every_table_reads_with_pandas_duckdb_and_polars(tmp_path, public_fact, baseline):
    import duckdb
    import pandas as pd
    import polars as pl

    write_all(tmp_path, run_serial([Job(public_fact, s) for s in (0, 1)], baseline, REFERENCE))
    # a writer killed mid-write leaves a dot-file; readers must skip it
    (tmp_path / "traces" / "probes" / "public_fact" / ".2.parquet.123.tmp").write_bytes(b"junk")
    for name in TABLE_NAMES:
        folder = tmp_path / "traces" / name
        by_pandas = pd.read_parquet(folder)
        glob = str(folder / "*" / "*.parquet")
        by_duckdb = duckdb.sql(f"SELECT * FROM read_parquet('{glob}')").df()
        by_polars = pl.read_parquet(glob)
        expected = set(TABLES[name].names)
        assert {"scenario", "seed", "tick", "event_id"} <= expected
        assert (
            set(by_pandas.columns) == set(by_duckdb.columns) == set(by_polars.columns) == expected
        )
        assert len(by_pandas) == len(by_duckdb) == by_polars.height
        if len(by_pandas):
            assert sorted(by_pandas["seed"].unique()) == [0, 1]


def test_tables_carry_what_happened(public_fact, baseline):
    (record,) = run_serial([Job(public_fact, 0)], baseline, REFERENCE)
    t = {k: v.to_pandas() for k, v in record.tables.items()}
    assert len(t["truth"]) == 1
    origin = t["exposures"].sort_values("tick").iloc[0]
    assert origin["agent"] == "gus" and origin["channel"] == "heard"  # the baker tells gus
    told = t["exposures"][t["exposures"].channel == "told"]
    assert told["from_agent"].notna().all()
    census = t["probes"][t["probes"].kind == "census"]
    assert len(census) == len(public_fact.agents)
    decisions = t["actions"][t["actions"].decision_point.notna()]
    assert len(decisions) == len(public_fact.agents)
    assert (decisions["in_line"] == (decisions["target"] == "market")).all()
    failed = t["actions"][~t["actions"].ok]
    assert (failed["target"] == "bakery").all()  # the closed bakery's door does not open
    assert not t["utterances"]["text"].str.contains(r"\d\.\d").any()  # no raw numbers


def test_crashed_episode_is_a_record_not_an_exception(public_fact):
    (record,) = run_serial([Job(public_fact, 0)], Policy(), "tests.fixtures.agents:broken")
    assert record.status == "crashed" and "broken on purpose" in record.error


def test_a_rerun_sweeps_the_temp_files_a_killed_writer_left(tmp_path):
    from experiments.evaluation.evaluate import Execution, Instrument, evaluate

    orphan = tmp_path / "traces" / "probes" / "secret" / ".0.parquet.x1y2.tmp"
    orphan.parent.mkdir(parents=True)
    orphan.write_bytes(b"half a file")
    evaluate(
        load_policy(baseline_path()),
        Instrument.load(["secret"]),
        (0,),
        Execution(serial=True),
        out=tmp_path,
    )
    assert not orphan.exists()
    assert (tmp_path / "traces" / "probes" / "secret" / "0.parquet").exists()


# --- an interrupted run is resumed; another run's traces are never mixed in -------------------------
def test_a_killed_run_resumes_where_it_stopped_and_scores_as_a_fresh_one(tmp_path):
    """`villagelab run` killed (SIGKILL) after a few episodes: `score` refuses the half folder,
    the same command again runs only what is missing, and the scorecard equals a fresh run's."""
    import json
    import signal
    import subprocess
    import sys
    import time

    from .conftest import ROOT, villagelab

    args = [
        "run",
        "--scenario",
        "mango_recall",
        "--scenario",
        "secret",
        "--policy",
        str(ROOT / "policies" / "careful.yaml"),
        "--seeds",
        "0-5",
        "--serial",
    ]
    out = tmp_path / "killed"
    exe = str(Path(sys.executable).with_name("villagelab"))
    run = subprocess.Popen(
        [exe, *args, "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    written = out / "traces" / "probes"
    while run.poll() is None and len(list(written.glob("*/*.parquet"))) < 2:
        time.sleep(0.05)
    run.send_signal(signal.SIGKILL)
    run.wait()
    done = len(list(written.glob("*/*.parquet")))
    assert 2 <= done < 12, "the run was not stopped midway"
    assert json.loads((out / "manifest.json").read_text())["complete"] is False
    refused = villagelab("score", str(out))
    assert refused.returncode == 2 and "resume" in refused.stderr

    resumed = villagelab(*args, "--out", str(out), "--json", str(out / "card.json"))
    assert resumed.returncode == 0, resumed.stderr
    assert "resumed: " in resumed.stderr and "of 12 episodes" in resumed.stderr
    fresh = villagelab(
        *args, "--out", str(tmp_path / "fresh"), "--json", str(tmp_path / "fresh" / "card.json")
    )
    assert fresh.returncode == 0, fresh.stderr
    assert (out / "card.json").read_text() == (tmp_path / "fresh" / "card.json").read_text()
    assert digests(out) == digests(tmp_path / "fresh")


def test_a_folder_with_another_runs_traces_is_refused_untouched(tmp_path):
    from .conftest import ROOT, villagelab

    first = villagelab(
        "run",
        "--scenario",
        "secret",
        "--policy",
        str(ROOT / "policies" / "careful.yaml"),
        "--seeds",
        "0-1",
        "--serial",
        "--out",
        str(tmp_path),
    )
    assert first.returncode == 0, first.stderr
    before = (tmp_path / "manifest.json").read_bytes(), digests(tmp_path)
    other = villagelab(
        "run",
        "--scenario",
        "secret",
        "--policy",
        str(ROOT / "policies" / "baseline.yaml"),
        "--seeds",
        "0-1",
        "--serial",
        "--out",
        str(tmp_path),
    )
    assert other.returncode == 2 and "another run (policy" in other.stderr
    assert "Traceback" not in other.stderr
    assert ((tmp_path / "manifest.json").read_bytes(), digests(tmp_path)) == before
