"""End-to-end search: Optuna trials, MLflow parent and child runs, champion and rollback."""

from __future__ import annotations

import pytest

from .conftest import villagelab


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    root = tmp_path_factory.mktemp("search")
    config = root / "tiny.yaml"
    config.write_text("scenarios: [public_fact]\nseeds: 0-1\n")
    runs = root / "runs"
    result = villagelab(
        "search",
        "--study",
        "tiny",
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
    return root, runs, result


def test_search_prints_where_results_are_and_how_to_open_them(searched):
    _, runs, result = searched
    assert "trials_this_run: 3" in result.stdout
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
        assert tags["villagelab.decision"] in ("promoted", "rolled_back", "pruned")
        assert {
            "villagelab.policy",
            "villagelab.harness",
            "villagelab.instrument",
            "villagelab.trial",
            "villagelab.study",
        } <= set(tags)
        assert "retrieval.top_k" in child.data.params
        assert child.info.status == "FINISHED"
        if tags["villagelab.decision"] != "pruned":
            assert "objective" in child.data.metrics and "reach" in child.data.metrics
    assert not (root / "mlruns").exists()  # nothing strayed into the working directory


def test_champion_is_exported_from_the_registry(searched):
    from experiments.promotion.champion import Registry
    from policies import load_policy

    _, runs, result = searched
    registry = Registry(f"sqlite:///{runs / 'mlflow.db'}")
    _number, policy = registry.policy()
    assert dict(load_policy(runs / "studies" / "tiny" / "champion.yaml")) == dict(policy)
    promoted = [line for line in result.stderr.splitlines() if ": promoted" in line]
    assert len(registry.history()) == 1 + len(promoted)  # the start policy, then promotions


def test_resuming_with_another_harness_refuses(searched):
    from experiments.search.study import open_study, storage_for
    from policies import InputError

    _, runs, _ = searched
    storage = storage_for(None, runs / "optuna.journal")
    with pytest.raises(InputError, match="frozen harness"):
        open_study("tiny", storage, "global", {"harness": "0" * 24, "instrument": "1" * 24})


def test_the_printed_next_steps_work_when_copied_into_a_plain_shell(searched):
    """The commands name the executable that ran (the venv is not on a new shell's PATH)."""
    import os
    import subprocess

    root, runs, result = searched
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    plain = {**os.environ, "PATH": "/usr/bin:/bin"}
    report = subprocess.run(
        lines["morning_report"],
        shell=True,
        cwd=root,
        env=plain,
        capture_output=True,
        text=True,
        check=False,
    )
    assert report.returncode == 0, report.stderr
    assert "Morning report: study tiny" in report.stdout
    ui = lines["open the MLflow UI"]
    assert ui.split()[0].endswith("villagelab") and ui.split()[1:] == [
        "ui",
        "--runs-dir",
        str(runs),
    ]


def test_a_finished_study_says_how_to_extend_it_and_leaves_no_empty_parent_run(searched):
    import shlex
    import subprocess

    from mlflow.tracking import MlflowClient

    root, runs, _ = searched
    args = [
        "search",
        "--study",
        "tiny",
        "--trials",
        "3",
        "--config",
        str(root / "tiny.yaml"),
        "--runs-dir",
        str(runs),
        "--serial",
    ]
    again = villagelab(*args, cwd=root)
    assert again.returncode == 0, again.stderr
    assert "trials_this_run: 0" in again.stdout and "stopped_by: spent" in again.stdout
    assert "has used its budget of 3 trials; nothing ran" in " ".join(again.stderr.split())
    extend = next(line for line in again.stdout.splitlines() if line.startswith("extend_it"))
    assert shlex.split(extend.split(": ", 1)[1])[1:] == [*args[:3], "--trials", "13", *args[5:]]
    client = MlflowClient(tracking_uri=f"sqlite:///{runs / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("tiny")
    parents = client.search_runs([experiment.experiment_id], "tags.`villagelab.kind` = 'search'")
    assert len(parents) == 1  # the rerun opened no run
    assert subprocess.run(
        shlex.split(extend.split(": ", 1)[1])[:1] + ["--version"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.startswith("villagelab ")
