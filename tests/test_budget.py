"""An episode's budget: past its wall clock or its memory it ends as timed_out or
out_of_memory, recorded in the manifest, and the run goes on with the others."""

from __future__ import annotations

import json

import pytest

from harness.engine.budget import Budget, BudgetExceeded, Watch
from harness.engine.contract import EpisodeStatus

from .conftest import ROOT, villagelab

POLICY = str(ROOT / "policies" / "careful.yaml")


def statuses(out) -> dict[str, str]:  # type: ignore[no-untyped-def]
    manifest = json.loads((out / "manifest.json").read_text())
    return {f"{e['scenario']}/{e['seed']}": e["status"] for e in manifest["episodes"]}


def test_a_spent_budget_stops_the_tick_loop():
    watch = Watch(Budget(seconds=60, memory_mb=None))
    watch.check()  # within its budget: nothing happens
    watch.started -= 61  # as if a minute had passed
    with pytest.raises(BudgetExceeded) as info:
        watch.check()
    assert info.value.status is EpisodeStatus.TIMED_OUT


def test_memory_grown_past_the_budget_stops_the_tick_loop():
    watch = Watch(Budget(seconds=None, memory_mb=50))
    watch.check()
    watch.memory_at_start -= 100  # as if the episode had grown its process by 100 MB
    with pytest.raises(BudgetExceeded) as info:
        for _ in range(16):  # memory is read every 16 ticks
            watch.check()
    assert info.value.status is EpisodeStatus.OUT_OF_MEMORY


@pytest.mark.slow
@pytest.mark.parametrize("where", [["--serial"], ["--workers", "2"]])
def test_an_agent_stuck_in_decide_times_out_and_the_run_goes_on(tmp_path, where):
    out = tmp_path / "out"
    result = villagelab(
        *("run", "--scenario", "public_fact", "--scenario", "secret", "--seeds", "0"),
        *("--policy", POLICY, "--out", str(out), "--episode-timeout", "2", *where),
        *("--agent", "tests.fixtures.agents:Stuck"),
        cwd=ROOT,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert statuses(out) == {"public_fact/0": "ok", "secret/0": "timed_out"}
    assert "episode secret/0: timed_out: ran past its time budget of 2 s" in result.stderr
    assert (out / "traces" / "actions" / "public_fact" / "0.parquet").exists()
    assert not (out / "traces" / "actions" / "secret").exists()


@pytest.mark.slow
def test_an_agent_that_hogs_memory_is_out_of_memory_and_the_run_goes_on(tmp_path):
    out = tmp_path / "out"
    result = villagelab(
        *("run", "--scenario", "public_fact", "--scenario", "secret", "--seeds", "0"),
        *("--policy", POLICY, "--out", str(out), "--episode-memory", "100", "--serial"),
        *("--agent", "tests.fixtures.agents:Hog"),
        cwd=ROOT,
    )
    assert result.returncode == 2, result.stderr
    assert statuses(out) == {"public_fact/0": "ok", "secret/0": "out_of_memory"}
    assert "its budget is 100 MB" in result.stderr and "Traceback" not in result.stderr
