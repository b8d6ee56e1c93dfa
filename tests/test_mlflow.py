"""What a search leaves in MLflow and Optuna for a person to compare: named parent runs with
their settings, every metric's interval with the champion's beside it, pruned trials' steps,
seed sets as dataset inputs, promotion evidence on the model version, decision and reason in
Optuna, and optuna-dashboard reading the journal."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import optuna
import pytest

from .conftest import ROOT, villagelab

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """careful.yaml is promoted over the start (baseline.yaml); baseline.yaml, tried again,
    is pruned; a third trial is whatever TPE samples."""
    root = tmp_path_factory.mktemp("mlflow")
    config = root / "search.yaml"
    config.write_text(
        f"scenarios: [replan_bridge, room_two_days]\nseeds: 0-4\nfirst: "
        f"[{ROOT / 'policies' / 'careful.yaml'}, "
        f"{ROOT / 'policies' / 'baseline.yaml'}]\n"
    )
    runs = root / "runs"
    result = villagelab(
        "search",
        "--study",
        "seen",
        "--trials",
        "3",
        "--config",
        str(config),
        "--runs-dir",
        str(runs),
        "--serial",
        cwd=root,
    )
    assert result.returncode == 0, result.stderr
    from mlflow.tracking import MlflowClient

    client = MlflowClient(
        tracking_uri=f"sqlite:///{runs / 'mlflow.db'}",
        registry_uri=f"sqlite:///{runs / 'mlflow.db'}",
    )
    experiment = client.get_experiment_by_name("seen")
    found = client.search_runs([experiment.experiment_id], max_results=100)
    trials = {
        r.data.tags["villagelab.trial"]: r
        for r in found
        if r.data.tags.get("villagelab.kind") == "trial"
    }
    (parent,) = [r for r in found if r.data.tags.get("villagelab.kind") == "search"]
    return runs, client, experiment, parent, trials


def test_the_experiment_is_described_and_opens_on_its_trials(study):
    _, _, experiment, _, _ = study
    assert "parent run" in experiment.tags["mlflow.note.content"]
    view = json.loads(experiment.tags["mlflow.sharedViewState.villagelab"])
    assert view["searchFilter"] == "tags.`villagelab.kind` = 'trial'"
    assert "metrics.`objective.champion`" in view["selectedColumns"]


def test_the_parent_run_is_named_by_study_and_time_with_the_settings_as_params(study):
    _, _, _, parent, _ = study
    assert re.fullmatch(r"seen \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", parent.info.run_name)
    params = parent.data.params
    assert params["trials"] == "3" and params["mode"] == "global"
    assert params["seeds"] == "0,1,2,3,4" and params["scenarios"] == "replan_bridge,room_two_days"
    assert params["margin"] == "0.0" and params["confirmation_seeds"] == "5"
    assert params["start_policy"].endswith("baseline.yaml")
    (selection,) = parent.inputs.dataset_inputs
    assert selection.dataset.name == "selection seeds"
    assert {t.key: t.value for t in selection.tags}["mlflow.data.context"] == "selection"
    assert json.loads(selection.dataset.profile)["num_rows"] == 10  # 2 scenarios × 5 seeds


def test_a_trial_logs_each_metric_with_its_interval_and_the_champions_beside_it(study):
    _, _, _, _, trials = study
    promoted = trials["0"]
    assert promoted.data.tags["villagelab.decision"] == "promoted"
    m = promoted.data.metrics
    for key in ("objective", "provenance", "replan_bridge/provenance", "room_two_days/milestones"):
        assert m[f"{key}.ci_low"] <= m[key] <= m[f"{key}.ci_high"]
        assert f"{key}.champion" in m and f"{key}.champion.ci_low" in m
    assert m["objective.champion"] < m["objective"]  # the start was the champion then
    diff = m["replan_bridge/provenance.vs_champion"]
    assert diff == pytest.approx(
        m["replan_bridge/provenance"] - m["replan_bridge/provenance.champion"], abs=2e-4
    )
    assert m["optuna_value"] == m["objective"] and m["violation"] == 0
    contexts = sorted({t.value for d in promoted.inputs.dataset_inputs for t in d.tags})
    assert contexts == ["confirmation", "selection"]


def test_the_parent_draws_the_champions_objective_after_every_trial(study):
    _, client, _, parent, trials = study
    curve = client.get_metric_history(parent.info.run_id, "champion_objective")
    assert [p.step for p in curve] == [1, 2, 3]  # held and written together, none lost
    # careful, promoted first (a trial's metrics are rounded to 4 places)
    assert curve[0].value == pytest.approx(trials["0"].data.metrics["objective"], abs=1e-4)
    assert [p.value for p in curve] == sorted(p.value for p in curve)  # a champion only rises


def test_a_finished_trial_keeps_its_results_table_scorecard_policy_and_comparison(study):
    _, client, _, _, trials = study
    run = trials["0"]
    listed = {f.path for f in client.list_artifacts(run.info.run_id)}
    assert {"results.json", "scorecard.json", "policy.yaml", "vs_champion.json"} <= listed
    logged = json.loads(run.data.tags["mlflow.loggedArtifacts"])
    assert logged == [{"path": "results.json", "type": "table"}]  # the UI shows it as a table
    import pandas as pd

    # read as MLflow's load_table reads a table (which searches the default store, not ours)
    table = pd.read_json(client.download_artifacts(run.info.run_id, "results.json"), orient="split")
    card = json.loads(
        Path(client.download_artifacts(run.info.run_id, "scorecard.json")).read_text()
    )
    assert set(table["scenario"]) == set(card["scenarios"]) == {"replan_bridge", "room_two_days"}
    assert set(table["seed"]) == {0, 1, 2, 3, 4}
    for (scenario, metric, seed), value in table.set_index(["scenario", "metric", "seed"])[
        "value"
    ].items():
        summary = card["scenarios"][scenario].get(metric)
        if summary is not None:
            assert value == pytest.approx(summary["per_seed"][str(seed)], abs=1e-9)
    from policies import load_policy

    policy = load_policy(Path(client.download_artifacts(run.info.run_id, "policy.yaml")))
    assert policy.hash == run.data.tags["villagelab.policy"]
    assert not [p for p in listed if p.startswith(".")]  # no temp file left


def test_a_pruned_trial_logs_the_intermediate_values_it_was_stopped_on(study):
    runs, client, _, _, trials = study
    pruned = trials["1"]
    assert pruned.data.tags["villagelab.decision"] == "pruned"
    assert "after" in pruned.data.tags["villagelab.reason"]
    history = client.get_metric_history(pruned.info.run_id, "instance_objective")
    reported = optuna.load_study(study_name="seen", storage=_journal(runs)).trials[1]
    assert {h.step: h.value for h in history} == pytest.approx(
        {s: round(v, 4) for s, v in reported.intermediate_values.items()}
    )
    assert pruned.data.metrics["instances_run"] == len(history) < 10


def test_the_model_version_holds_the_promotion_evidence(study):
    _, client, experiment, parent, trials = study
    versions = {int(v.version): v for v in client.search_model_versions("name='villagelab-policy'")}
    assert sorted(versions) == [1, 2]
    assert "previous" not in versions[1].tags and versions[2].tags["previous"] == "1"
    assert "start policy" in versions[1].description
    text = versions[2].description
    assert text.startswith("**Promoted** from trial 0 of study `seen`, replacing version 1.")
    assert re.search(r"\| selection \| 0-4 \| \+0\.[1-9]", text)  # a clear paired gain
    assert "| confirmation (fresh) |" in text
    assert f"#/experiments/{experiment.experiment_id}/runs/{trials['0'].info.run_id}" in text
    assert f"#/experiments/{experiment.experiment_id}/runs/{parent.info.run_id}" in text


def test_optuna_holds_metric_names_and_each_decision_with_its_reason(study):
    runs, _, _, _, _ = study
    loaded = optuna.load_study(study_name="seen", storage=_journal(runs))
    assert loaded.metric_names == ["objective (or -violation when a guardrail breaks)"]
    decisions = [t.user_attrs["decision"] for t in loaded.trials]
    assert decisions == ["promoted", "pruned", "pruned"]
    assert all(t.user_attrs["reason"] for t in loaded.trials)


def test_optuna_dashboard_loads_the_journal_and_agrees_on_the_best_trial(study, tmp_path):
    runs, _, _, _, _ = study
    from .test_ui import free_port

    port = free_port()
    exe = str(Path(sys.executable).with_name("optuna-dashboard"))
    server = subprocess.Popen(
        [exe, str(runs / "optuna.journal"), "--port", str(port), "--host", "127.0.0.1", "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        studies = _get_json(f"http://127.0.0.1:{port}/api/studies", server)
        (entry,) = [s for s in studies["study_summaries"] if s["study_name"] == "seen"]
        detail = _get_json(f"http://127.0.0.1:{port}/api/studies/{entry['study_id']}", server)
    finally:
        server.terminate()
        server.wait(timeout=30)
    loaded = optuna.load_study(study_name="seen", storage=_journal(runs))
    assert [t["number"] for t in detail["best_trials"]] == [loaded.best_trial.number]
    assert detail["objective_names"] == loaded.metric_names
    attrs = {a["key"]: a["value"] for a in detail["trials"][0]["user_attrs"]}
    assert attrs["decision"] == "promoted" and attrs["reason"].startswith("objective +")


def _journal(runs: Path):  # type: ignore[no-untyped-def]
    from experiments.search.study import storage_for

    return storage_for(None, runs / "optuna.journal")


def _get_json(url: str, server: subprocess.Popen) -> dict:  # type: ignore[type-arg]
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                return json.loads(reply.read())
        except OSError:
            if server.poll() is not None:
                raise AssertionError(server.stderr.read().decode()) from None
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def test_run_with_mlflow_logs_its_scorecard_and_exits_1_on_a_broken_guardrail(tmp_path):
    from mlflow.tracking import MlflowClient

    runs = tmp_path / "runs"
    result = villagelab(
        "run",
        "--scenario",
        "secret",
        "--policy",
        str(ROOT / "policies" / "baseline.yaml"),
        "--seeds",
        "0-1",
        "--out",
        str(tmp_path / "out"),
        "--serial",
        "--mlflow",
        "--runs-dir",
        str(runs),
    )
    assert result.returncode == 1, result.stderr  # baseline.yaml leaks the secret
    assert "guardrail broken: containment" in result.stderr
    client = MlflowClient(tracking_uri=f"sqlite:///{runs / 'mlflow.db'}")
    (run,) = client.search_runs([client.get_experiment_by_name("villagelab-run").experiment_id])
    assert run.info.run_name.startswith("run baseline ")
    assert run.data.params["seeds"] == "0,1" and run.data.params["scenarios"] == "secret"
    assert run.data.metrics["containment"] == 0 and "secret/containment.ci_low" in run.data.metrics
    logged = {f.path for f in client.list_artifacts(run.info.run_id, "reports")}
    assert {"reports/report.md", "reports/report.html", "reports/manifest.json"} <= logged
    assert run.inputs.dataset_inputs[0].dataset.name == "run seeds"


def test_sweep_with_mlflow_logs_a_parent_and_a_run_per_value(tmp_path):
    from mlflow.tracking import MlflowClient

    runs = tmp_path / "runs"
    result = villagelab(
        "sweep",
        "--param",
        "sharing.proactive",
        "--values",
        "0.2,0.8",
        "--scenario",
        "public_fact",
        "--seeds",
        "0-1",
        "--serial",
        "--mlflow",
        "--runs-dir",
        str(runs),
    )
    assert result.returncode == 0, result.stderr
    client = MlflowClient(tracking_uri=f"sqlite:///{runs / 'mlflow.db'}")
    found = client.search_runs([client.get_experiment_by_name("villagelab-sweep").experiment_id])
    (parent,) = [r for r in found if "mlflow.parentRunId" not in r.data.tags]
    points = {
        r.info.run_name: r
        for r in found
        if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id
    }
    assert sorted(points) == ["sharing.proactive=0.2", "sharing.proactive=0.8"]
    assert parent.data.params["values"] == "0.2,0.8"
    for run in points.values():
        assert "reach" in run.data.metrics
        assert {f.path for f in client.list_artifacts(run.info.run_id, "reports")} == {
            "reports/report.md",
            "reports/report.html",
        }


def test_every_trial_logs_where_its_time_went_pruned_ones_too(study):
    _, _, _, _, trials = study
    assert sorted(t.data.tags["villagelab.decision"] for t in trials.values()) == [
        "promoted",
        "pruned",
        "pruned",
    ]
    for run in trials.values():
        m = run.data.metrics
        parts = ("simulation", "scoring", "waiting", "optuna", "mlflow", "overhead", "trial")
        assert all(m[f"{p}_seconds"] >= 0 for p in parts), sorted(m)
        assert m["simulation_seconds"] > 0 and m["mlflow_seconds"] > 0
        # no inequality between parts: simulation is timed inside the episode, waiting around
        # it, and scoring also covers the driver's scorecard (outside the waiting)
        assert m["overhead_seconds"] == pytest.approx(
            m["trial_seconds"] - m["waiting_seconds"], abs=0.002
        )
