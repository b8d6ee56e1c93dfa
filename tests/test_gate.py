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
    result = villagelab(
        "gate",
        "--policy",
        CAREFUL,
        "--baseline",
        str(path),
        "--update-baseline",
        "--serial",
        "--no-mlflow",
    )
    assert result.returncode == 0, result.stderr
    return path


def gate(cli, policy: str, baseline, *extra: str):
    return cli(
        "gate",
        "--policy",
        policy,
        "--baseline",
        str(baseline),
        "--serial",
        *(extra or ("--no-mlflow",)),
    )


def test_policy_passes_against_its_own_baseline(cli, own_baseline, tmp_path):
    result = gate(cli, CAREFUL, own_baseline, "--json", str(tmp_path / "g.json"))
    assert result.returncode == 0, result.stdout + result.stderr
    verdict = json.loads((tmp_path / "g.json").read_text())
    assert verdict["verdict"] == "pass" and verdict["checks"]
    assert not any(c["failed"] for c in verdict["checks"])


@pytest.mark.parametrize(
    "change, named",
    [
        (("keep_source: true", "keep_source: false"), "provenance regressed"),
        (("mark_second_hand: true", "mark_second_hand: false"), "action_consistency regressed"),
        (("respect_privacy: true", "respect_privacy: false"), "guardrail containment broken"),
        (("trigger_confidence: 0.4", "trigger_confidence: 1.0"), "action_consistency regressed"),
    ],
    ids=["sources dropped", "hedging off", "privacy labels off", "replanning off"],
)
def test_planted_regression_fails_with_exit_1_naming_the_metric(
    cli, own_baseline, tmp_path, change, named
):
    text = (ROOT / "policies" / "careful.yaml").read_text()
    assert change[0] in text
    planted = tmp_path / "planted.yaml"
    planted.write_text(text.replace(*change))
    result = gate(cli, str(planted), own_baseline)
    assert result.returncode == 1, result.stdout + result.stderr
    assert named in result.stderr


def test_missing_baseline_gives_exit_3(cli, tmp_path):
    result = gate(cli, CAREFUL, tmp_path / "nothing.json")
    assert result.returncode == 3 and "no baseline" in result.stderr


def made_elsewhere(baseline, tmp_path, **changes):
    """The baseline as another checkout would have written it: changed, and sealed anew."""
    from harness.engine.integrity import seal

    other = {**json.loads(baseline.read_text()), **changes}
    other["sha256"] = seal(other)
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other))
    return path


def test_baseline_of_another_instrument_gives_exit_3(cli, own_baseline, tmp_path):
    path = made_elsewhere(own_baseline, tmp_path, instrument="f" * 24)
    result = gate(cli, CAREFUL, path)
    assert result.returncode == 3 and "instrument" in result.stderr
    assert "differ" in result.stderr


def test_baseline_of_another_harness_is_compared_not_refused(cli, own_baseline, tmp_path):
    path = made_elsewhere(own_baseline, tmp_path, harness="e" * 24)
    result = gate(cli, CAREFUL, path)
    assert result.returncode == 0
    assert f"harness {'e' * 24} →" in result.stdout


def test_committed_baseline_matches_this_instrument():
    from harness import instrument_hash

    committed = json.loads((ROOT / "scorecards" / "baseline.json").read_text())
    assert committed["instrument"] == instrument_hash()


def test_an_edited_scenario_is_named_as_what_differs(own_baseline, tmp_path):
    from experiments.evaluation.gate import load_baseline
    from harness.engine.hashing import instrument_parts

    _, parts = load_baseline(own_baseline)
    assert parts == instrument_parts()  # the baseline knows its parts, to explain a mismatch


def test_junit_and_summary_count_every_check_and_guardrail(cli, own_baseline, tmp_path):
    import xml.etree.ElementTree as ET

    step = tmp_path / "step.md"
    step.write_text("earlier step\n")
    result = cli(
        "gate",
        "--policy",
        CAREFUL,
        "--baseline",
        str(own_baseline),
        "--serial",
        "--junit",
        str(tmp_path / "g.xml"),
        "--summary",
        str(tmp_path / "g.md"),
        "--json",
        str(tmp_path / "g.json"),
        "--no-mlflow",
        env={"GITHUB_STEP_SUMMARY": str(step)},
    )
    assert result.returncode == 0
    suite = ET.parse(tmp_path / "g.xml").getroot()
    verdict = json.loads((tmp_path / "g.json").read_text())
    cases = suite.findall("testcase")
    assert (
        int(suite.get("tests")) == len(cases) == len(verdict["checks"]) + len(verdict["guardrails"])
    )
    assert {c.get("classname") for c in cases} >= {"public_fact", "secret", "guardrails"}
    assert int(suite.get("failures")) == 0
    summary = (tmp_path / "g.md").read_text()
    assert "villagelab gate: pass" in summary
    assert step.read_text() == "earlier step\n" + summary  # appended, not replaced


def test_a_gate_is_logged_as_an_mlflow_run_with_its_scorecard_and_reports(
    cli, own_baseline, tmp_path
):
    from mlflow.tracking import MlflowClient

    planted = tmp_path / "planted.yaml"
    planted.write_text(
        (ROOT / "policies" / "careful.yaml")
        .read_text()
        .replace("keep_source: true", "keep_source: false")
    )
    runs = tmp_path / "runs"
    result = gate(
        cli, str(planted), own_baseline, "--runs-dir", str(runs), "--json", str(tmp_path / "g.json")
    )
    assert result.returncode == 1
    client = MlflowClient(tracking_uri=f"sqlite:///{runs / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("villagelab-gate")
    (run,) = client.search_runs([experiment.experiment_id])
    assert run.info.run_id in result.stdout  # the printed address names it
    assert run.data.tags["villagelab.verdict"] == "fail"
    assert "provenance regressed" in run.data.tags["villagelab.message"]
    m = run.data.metrics
    assert m["public_fact/provenance.vs_baseline"] < 0
    assert m["provenance.baseline"] > m["provenance"]
    (seeds,) = run.inputs.dataset_inputs
    assert seeds.dataset.name == "gate seeds"
    logged = {f.path for f in client.list_artifacts(run.info.run_id, "reports")}
    assert {"reports/report.md", "reports/report.html", "reports/g.json"} <= logged
    assert "scorecard.json" in {f.path for f in client.list_artifacts(run.info.run_id)}
    assert run.info.run_name.startswith("gate planted ")


def test_holm_controls_the_family():
    from scorecards.gate import holm

    assert holm([0.001, 0.04, 0.03], 0.05) == [True, False, False]
    assert holm([0.001, 0.02, 0.04], 0.05) == [True, True, True]
    assert holm([0.2, 0.001], 0.05) == [False, True]


def test_every_named_suite_file_is_part_of_the_instrument():
    """A suite's seed sets and scenario list measure: editing the research suite's file must
    change the instrument a baseline was made on, not only editing the main suite's."""
    from harness.engine.hashing import instrument_files
    from scenarios.suite import SUITES

    assert set(SUITES.values()) <= set(instrument_files())
