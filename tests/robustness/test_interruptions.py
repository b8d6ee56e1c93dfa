"""Kills at a random moment, made deterministic: VILLAGELAB_INTERRUPT_AT=N ends the process at
its Nth checkpoint as kill -9 would (villagelab/interruption.py), between a temp file and its
rename, after a store is opened, between a trial's ask and its tell. The same command then
resumes: a run ends with traces byte-identical to an uninterrupted run's; a search ends with
its budget spent and every trial accounted for in Optuna and MLflow. CI draws a fixed
sample of moments; --robustness-full tries every one, in order. `python -m
tests.robustness.killsweep` does the same for a search from outside, adds SIGKILLs timed into
the MLflow store's making (between checkpoints), and looks for orphan processes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from villagelab import interruption

from ..servers import EXE
from .invoke import cli
from .killsweep import accounted
from .mutations import ROOT

RUN = ["--scenario", "public_fact", "--seeds", "0-1", "--serial"]
POLICY = ["--policy", str(ROOT / "policies" / "baseline.yaml")]


def checkpoints(tmp_path: Path, monkeypatch, *args: str) -> tuple[int, object]:  # type: ignore[no-untyped-def]
    """Run the command in this process, counting its checkpoints."""
    log = tmp_path / "checkpoints.log"
    monkeypatch.setenv(interruption.LOG, str(log))
    got = cli(*args, seconds=600)
    monkeypatch.delenv(interruption.LOG)
    interruption._passed[0] = 0
    return len(log.read_text().splitlines()), got


def interrupted(at: int, *args: str) -> None:
    """The command in its own process, ended at checkpoint `at` as by kill -9."""
    done = subprocess.run(
        [EXE, *args],
        env={**os.environ, interruption.AT: str(at)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 137, done.stderr[-2000:]
    assert f"interrupted at checkpoint {at}:" in done.stderr


def files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*.parquet"))
        if not p.name.startswith(".")
    }


def test_a_run_killed_at_any_moment_resumes_to_identical_traces(
    tmp_path, monkeypatch, robustness_full
):
    monkeypatch.setenv("VILLAGELAB_PROCESS_RECORDS", str(tmp_path / "records"))
    total, reference = checkpoints(
        tmp_path, monkeypatch, "run", *RUN, *POLICY, "--out", str(tmp_path / "ref")
    )
    assert reference.code in (0, 1), reference.stderr
    expected = files(tmp_path / "ref")
    assert expected

    @settings(
        max_examples=2,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.integers(1, total))
    def drawn(at: int) -> None:
        case(at)

    def case(at: int) -> None:
        out = tmp_path / f"at-{at}"
        interrupted(at, "run", *RUN, *POLICY, "--out", str(out))
        resumed = cli("run", *RUN, *POLICY, "--out", str(out), seconds=600)
        assert resumed.code in (0, 1), resumed.stderr
        assert files(out) == expected, f"traces differ after a kill at checkpoint {at}"
        assert not [p for p in out.rglob(".*.tmp")], "temp files left behind"

    if robustness_full:  # every checkpoint, once
        for at in range(1, total + 1):
            case(at)
    else:
        drawn()


def test_a_search_killed_at_any_moment_resumes_with_every_trial_accounted_for(
    tmp_path, monkeypatch, robustness_full
):
    monkeypatch.setenv("VILLAGELAB_PROCESS_RECORDS", str(tmp_path / "records"))
    config = tmp_path / "search.yaml"
    config.write_text("scenarios: [public_fact]\nseeds: 0-1\n")

    def search(runs: Path) -> list[str]:
        return [
            "search",
            "--study",
            "s",
            "--trials",
            "2",
            "--config",
            str(config),
            "--runs-dir",
            str(runs),
            "--serial",
        ]

    total, reference = checkpoints(tmp_path, monkeypatch, *search(tmp_path / "ref"))
    assert reference.code == 0, reference.stderr
    passed = (tmp_path / "checkpoints.log").read_text().splitlines()
    # between Optuna's tell and MLflow's end of the trial's run: the resume must close that
    # run as the trial ended (the kill sweep found it KILLED, or left RUNNING when the
    # budget was already spent)
    told = [int(line.split()[0]) for line in passed if line.endswith(" told")]
    assert len(told) == 2  # a pruned trial is told too

    def case(at: int) -> None:
        runs = tmp_path / f"at-{at}"
        interrupted(at, *search(runs))
        resumed = cli(*search(runs), seconds=900)
        assert resumed.code == 0, resumed.stderr
        assert accounted(runs) == [], f"after a kill at checkpoint {at}"

    for at in range(1, total + 1) if robustness_full else told:  # CI: the two tells
        case(at)
