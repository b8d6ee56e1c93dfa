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
    # a budget public_fact keeps on a loaded machine, its plug-in agents each in a process
    result = villagelab(
        *("run", "--scenario", "public_fact", "--scenario", "secret", "--seeds", "0"),
        *("--policy", POLICY, "--out", str(out), "--episode-timeout", "10", *where),
        *("--agent", "tests.fixtures.agents:Stuck"),
        cwd=ROOT,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert statuses(out) == {"public_fact/0": "ok", "secret/0": "timed_out"}
    assert "episode secret/0: timed_out: ran past its time budget of 10 s" in result.stderr
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


def test_a_run_refuses_up_front_a_scenario_whose_estimated_cost_is_too_big(tmp_path):
    """1,000 agents for 14 days at one-minute ticks: every size within its own bound, the
    product beyond the cost bound. Refused before anything runs, saying the estimate;
    --allow-large lifts it (not run here: it is big on purpose)."""
    from .test_scenarios import SMALL

    agents = "".join(f"  - {{id: a{i}, home: home}}\n" for i in range(998))
    text = SMALL.replace("duration: 2h", "duration: 336h\ntick_minutes: 1").replace(
        "  - {id: bo, home: home}\n", "  - {id: bo, home: home}\n" + agents
    )
    path = tmp_path / "big.yaml"
    path.write_text(text)
    out = tmp_path / "out"
    refused = villagelab(
        "run",
        "--scenario",
        str(path),
        "--policy",
        POLICY,
        "--seeds",
        "0",
        "--serial",
        "--out",
        str(out),
    )
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    message = " ".join(refused.stderr.split())
    assert "estimated cost is 20,161,000 agent-ticks (1,000 agents × 20,161 ticks)" in message
    assert "--allow-large" in message
    assert not out.exists()  # nothing half-written


def test_a_billion_seeds_are_refused_by_their_count_not_by_memory(tmp_path):
    result = villagelab(
        "run",
        "--scenario",
        "secret",
        "--policy",
        POLICY,
        "--seeds",
        "0-999999999",
        "--out",
        str(tmp_path / "out"),
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "MemoryError" not in result.stderr
    assert "1,000,000,000 seeds; expected at most 10,000" in " ".join(result.stderr.split())
    assert not (tmp_path / "out").exists()
