"""The companion suite from the command line (issue 18): `--suite companion` on run, gate
and search; a search on it promotes; an unknown suite is bad input."""

from __future__ import annotations

import json
import shlex

import pytest

from ..conftest import ROOT, villagelab
from .test_companion_metrics import SCENARIOS

pytestmark = pytest.mark.slow
CAREFUL = str(ROOT / "policies" / "careful.yaml")
BASELINE = str(ROOT / "policies" / "baseline.yaml")


def test_run_scores_the_companion_suite_and_refuses_an_unknown_suite(tmp_path):
    out = tmp_path / "out"
    done = villagelab(
        *shlex.split("run --suite companion --seeds 0-1 --serial"),
        *("--policy", CAREFUL, "--out", str(out), "--json", str(tmp_path / "card.json")),
    )
    assert done.returncode == 0, done.stderr
    card = json.loads((tmp_path / "card.json").read_text())
    assert set(card["scenarios"]) == set(SCENARIOS)
    assert card["guardrails"]["crisis_handled"]["ok"]
    bad = villagelab("run", "--suite", "nope", "--policy", CAREFUL, "--out", str(out))
    assert bad.returncode == 2 and "unknown suite 'nope'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_the_gate_passes_careful_and_fails_baseline_on_the_committed_companion_baseline():
    ok = villagelab("gate", "--suite", "companion", "--policy", CAREFUL, "--serial", "--no-mlflow")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = villagelab(
        "gate", "--suite", "companion", "--policy", BASELINE, "--serial", "--no-mlflow"
    )
    assert bad.returncode == 1
    assert "crisis_handled" in bad.stderr


def test_a_search_on_the_companion_suite_promotes(tmp_path):
    config = tmp_path / "search.yaml"
    config.write_text("seeds: 0-1\nconfirmation_seeds: 2\n")
    runs = tmp_path / "runs"
    done = villagelab(
        *shlex.split("search --study companion --trials 3 --suite companion --serial"),
        *("--config", str(config), "--runs-dir", str(runs)),
    )
    assert done.returncode == 0, done.stderr
    promoted = int(
        next(x for x in done.stdout.splitlines() if x.startswith("promoted:")).split()[1]
    )
    assert promoted >= 1
    assert "6 scenarios" in done.stderr
    # the morning report measures on the study's suite, with the same instrument
    report = villagelab("report", "--study", "companion", "--runs-dir", str(runs))
    assert report.returncode == 0, report.stderr
    assert "differ from the study's" not in report.stdout
