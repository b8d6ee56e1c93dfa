"""The promotion rules inside a real search: the study's anchor, feasibility first, and what
Optuna records (decision and reason as user attributes, feasibility-first values)."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest

from .conftest import ROOT, villagelab

CAREFUL = ROOT / "policies" / "careful.yaml"

pytestmark = pytest.mark.slow


def variant(tmp_path: Path, name: str, *changes: tuple[str, str]) -> Path:
    text = CAREFUL.read_text()
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return path


def journal(runs: Path) -> optuna.Study:
    from experiments.search.study import storage_for

    return storage_for(None, runs / "optuna.journal")


def test_a_search_holds_each_candidate_to_the_studys_anchor(tmp_path):
    """The anchor is careful.yaml (the study's start). The champion has since drifted to P
    (no sources kept, hearsay unmarked: registered here as if promoted). C keeps sources again:
    it beats P clearly and is within tolerance of it everywhere — and is still refused, for
    it is far beyond tolerance of the anchor on replan_bridge_rumor (and public_fact, where
    hearsay of the closure told on day 1 now names no source at the census)."""
    unmarked = ("mark_second_hand: true", "mark_second_hand: false")
    drifted = variant(tmp_path, "p", ("  keep_source: true\n", "  keep_source: false\n"), unmarked)
    candidate = variant(tmp_path, "c", unmarked)
    config = tmp_path / "search.yaml"
    config.write_text(
        f"scenarios: [public_fact, replan_bridge_rumor]\nseeds: 0-2\n"
        f"start_policy: {CAREFUL}\nfirst: [{drifted}]\n"
    )
    runs = tmp_path / "runs"
    args = [
        "search",
        "--study",
        "drift",
        "--config",
        str(config),
        "--runs-dir",
        str(runs),
        "--serial",
    ]
    first = villagelab(*args, "--trials", "1")
    assert first.returncode == 0, first.stderr
    assert "trial 0: rolled_back" in first.stderr  # P is worse than careful

    from mlflow.tracking import MlflowClient

    from experiments.promotion.champion import Registry
    from policies import load_policy

    uri = f"sqlite:///{runs / 'mlflow.db'}"
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("drift")
    (p_run,) = client.search_runs([experiment.experiment_id], "tags.`villagelab.trial` = '0'")
    Registry(uri).promote(
        p_run.info.run_id, p_run.info.artifact_uri, load_policy(drifted), None, "drift", "0"
    )  # the drifted champion
    study = optuna.load_study(study_name="drift", storage=journal(runs))
    assert study.user_attrs["anchor"]["policy"] == dict(load_policy(CAREFUL))
    study.enqueue_trial(dict(load_policy(candidate)))

    second = villagelab(*args, "--trials", "2")
    assert second.returncode == 0, second.stderr
    line = next(x for x in second.stderr.splitlines() if x.startswith("trial 1"))
    assert "rolled_back" in line
    trial = optuna.load_study(study_name="drift", storage=journal(runs)).trials[1]
    assert trial.user_attrs["decision"] == "rolled_back"
    reason = trial.user_attrs["reason"]
    assert reason.startswith("worse than the study's anchor beyond tolerance: ")
    assert "replan_bridge_rumor/" in reason
    assert trial.value == pytest.approx(trial.user_attrs["objective"])  # feasible: objective


def test_a_start_that_breaks_a_guardrail_is_said_and_the_first_feasible_candidate_wins(tmp_path):
    config = tmp_path / "search.yaml"
    leaky = variant(tmp_path, "leaky", ("respect_privacy: true", "respect_privacy: false"))
    config.write_text(
        f"scenarios: [secret, public_fact]\nseeds: 0-2\nfirst: [{leaky}, {CAREFUL}]\n"
    )  # the start is baseline.yaml
    runs = tmp_path / "runs"
    result = villagelab(
        "search",
        "--study",
        "fix",
        "--trials",
        "2",
        "--config",
        str(config),
        "--runs-dir",
        str(runs),
        "--serial",
    )
    assert result.returncode == 0, result.stderr
    assert (
        "note: the champion (version 1) breaks a guardrail: containment 0.000 < 0.95"
        in " ".join(result.stderr.split())
    )
    lines = {x.split(":")[0]: x for x in result.stderr.splitlines() if x.startswith("trial ")}
    assert "rolled_back" in lines["trial 0"]  # leaks like the start: no smaller violation
    assert "promoted" in lines["trial 1"]
    assert "holds every guardrail, which the champion breaks" in result.stderr
    study = optuna.load_study(study_name="fix", storage=journal(runs))
    assert study.user_attrs["anchor"]["version"] == 2  # the first feasible champion
    leaked, kept = study.trials[:2]
    assert leaked.value < 0 < kept.value  # -violation, then the objective
    assert leaked.user_attrs["objective"] > 0 and leaked.user_attrs["violation"] > 0
    assert study.best_trial.number == 1
    assert study.metric_names == ["objective (or -violation when a guardrail breaks)"]


def test_a_policy_proposed_again_is_told_its_result_and_not_run_again(tmp_path):
    quieter = variant(tmp_path, "q", ("proactive: 0.6", "proactive: 0.3"))
    config = tmp_path / "search.yaml"
    config.write_text(
        f"scenarios: [public_fact]\nseeds: 0-1\nstart_policy: {CAREFUL}\n"
        f"first: [{quieter}, {quieter}]\n"
    )
    runs = tmp_path / "runs"
    args = ["--study", "again", "--config", str(config), "--runs-dir", str(runs), "--serial"]
    out = villagelab("search", *args, "--trials", "2")
    assert out.returncode == 0, out.stderr
    assert "trial 1: repeated" in out.stderr and "the policy of trial 0" in out.stderr
    assert "repeated: 1" in out.stdout
    first, again = optuna.load_study(study_name="again", storage=journal(runs)).trials
    assert again.user_attrs["decision"] == "repeated"
    assert again.user_attrs["policy"] == first.user_attrs["policy"]
    assert (again.state, again.value, again.constraints) == (
        first.state,
        first.value,
        first.constraints,
    )

    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{runs / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("again")
    (run,) = client.search_runs([experiment.experiment_id], "tags.`villagelab.trial` = '1'")
    assert run.data.tags["villagelab.decision"] == "repeated"
    assert "objective" not in run.data.metrics  # nothing was run, so nothing was scored
