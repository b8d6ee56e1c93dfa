"""End-to-end search: Optuna trials, MLflow parent and child runs, champion and rollback."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    from .conftest import villagelab

    root = tmp_path_factory.mktemp("search")
    config = root / "tiny.yaml"
    config.write_text("scenarios: [public_fact]\nseeds: 0-1\n")
    runs = root / "runs"
    result = villagelab("search", "--study", "tiny", "--trials", "3", "--config", str(config),
                        "--runs-dir", str(runs), "--serial", cwd=root)
    assert result.returncode == 0, result.stderr
    return root, runs, result


def test_search_prints_where_results_are_and_how_to_open_them(searched):
    _, runs, result = searched
    assert "trials: 3" in result.stdout
    assert f"villagelab ui --runs-dir {runs}" in result.stdout
    assert (runs / "optuna.journal").exists() and (runs / "mlflow.db").exists()


def test_mlflow_holds_one_parent_and_a_child_per_trial_with_its_decision(searched):
    from mlflow.tracking import MlflowClient

    root, runs, _ = searched
    client = MlflowClient(tracking_uri=f"sqlite:///{runs / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("tiny")
    assert experiment.artifact_location.startswith((runs / "artifacts").resolve().as_uri())
    found = client.search_runs([experiment.experiment_id])
    parents = [r for r in found if "mlflow.parentRunId" not in r.data.tags]
    children = [r for r in found if "mlflow.parentRunId" in r.data.tags]
    assert len(parents) == 1 and len(children) == 3
    for child in children:
        tags = child.data.tags
        assert tags["mlflow.parentRunId"] == parents[0].info.run_id
        assert tags["villagelab.decision"] in ("promoted", "rolled_back")
        assert {"villagelab.policy", "villagelab.harness", "villagelab.instrument",
                "villagelab.trial", "villagelab.study"} <= set(tags)
        assert "retrieval.top_k" in child.data.params
        assert "objective" in child.data.metrics and "reach" in child.data.metrics
        assert child.info.status == "FINISHED"
    assert not (root / "mlruns").exists()  # nothing strayed into the working directory


def test_champion_is_exported_and_only_promotions_move_it(searched):
    from policies import load_policy

    _, runs, result = searched
    folder = runs / "studies" / "tiny"
    champion = json.loads((folder / "champion.json").read_text())
    exported = load_policy(folder / "champion.yaml")
    assert dict(exported) == champion["policy_values"]
    promoted = [line for line in result.stderr.splitlines() if "→ promoted" in line]
    assert (champion["trial"] is None) == (not promoted)


def test_resuming_with_a_changed_scenario_refuses(searched, tmp_path):
    from experiments.search import open_study, RunsDir
    from policies import InputError

    _, runs, _ = searched
    with pytest.raises(InputError, match="another instrument"):
        open_study("tiny", None, RunsDir(runs), {"harness": _harness(runs),
                                                 "instrument": "0" * 24})


def _harness(runs):
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    storage = JournalStorage(JournalFileBackend(str(runs / "optuna.journal")))
    return optuna.load_study(study_name="tiny", storage=storage).user_attrs["harness"]
