"""The gate: pass against its own baseline, fail on a planted regression, refuse another
instrument, compare another harness."""

from __future__ import annotations

import json

import pytest

from .conftest import ROOT

CAREFUL = str(ROOT / "policies" / "careful.yaml")


@pytest.fixture(scope="module")
def own_baseline(tmp_path_factory):
    from .conftest import villagelab

    path = tmp_path_factory.mktemp("gate") / "baseline.json"
    result = villagelab("gate", "--policy", CAREFUL, "--baseline", str(path),
                        "--update-baseline", "--serial")
    assert result.returncode == 0, result.stderr
    return path


def gate(cli, policy: str, baseline, *extra: str):
    return cli("gate", "--policy", policy, "--baseline", str(baseline), "--serial", *extra)


def test_policy_passes_against_its_own_baseline(cli, own_baseline, tmp_path):
    result = gate(cli, CAREFUL, own_baseline, "--json", str(tmp_path / "g.json"))
    assert result.returncode == 0, result.stdout + result.stderr
    verdict = json.loads((tmp_path / "g.json").read_text())
    assert verdict["verdict"] == "pass" and verdict["comparison"]["regressions"] == []


def test_planted_regression_fails_with_exit_1_naming_the_metric(cli, own_baseline, tmp_path):
    forgetful = tmp_path / "forgetful.yaml"
    forgetful.write_text((ROOT / "policies" / "careful.yaml").read_text()
                         .replace("keep_source: true", "keep_source: false"))
    result = gate(cli, str(forgetful), own_baseline)
    assert result.returncode == 1
    assert "provenance regressed" in result.stderr


def test_missing_baseline_gives_exit_3(cli, tmp_path):
    result = gate(cli, CAREFUL, tmp_path / "nothing.json")
    assert result.returncode == 3 and "no baseline" in result.stderr


def test_baseline_of_another_instrument_gives_exit_3(cli, own_baseline, tmp_path):
    other = json.loads(own_baseline.read_text())
    other["instrument"] = "f" * 24
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other))
    result = gate(cli, CAREFUL, path)
    assert result.returncode == 3 and "instrument" in result.stderr


def test_baseline_of_another_harness_is_compared_not_refused(cli, own_baseline, tmp_path):
    other = json.loads(own_baseline.read_text())
    other["harness"] = "e" * 24
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other))
    result = gate(cli, CAREFUL, path)
    assert result.returncode == 0
    assert f"harness {'e' * 24} →" in result.stdout


def test_committed_baseline_matches_this_instrument():
    from harness import instrument_hash

    committed = json.loads((ROOT / "scorecards" / "baseline.json").read_text())
    assert committed["instrument"] == instrument_hash()
