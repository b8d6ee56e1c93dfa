"""The overnight search: promotion needs confirmation, the registry rolls back, a killed
driver is survived, a moved instrument is refused. Real Optuna journal, real MLflow store."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
from optuna.trial import TrialState

from .conftest import ROOT, villagelab


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "search.yaml"
    path.write_text(text)
    return path


def journal(runs: Path):  # type: ignore[no-untyped-def]
    from experiments.search.study import storage_for

    return storage_for(None, runs / "optuna.journal")


def mlflow_runs(runs: Path, study: str) -> list:  # type: ignore[type-arg]
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{runs / 'mlflow.db'}")
    experiment = client.get_experiment_by_name(study)
    return client.search_runs([experiment.experiment_id], max_results=1000)


def test_a_candidate_that_only_wins_on_the_selection_seeds_is_not_promoted(tmp_path):
    """tests/policies/lucky.yaml beats careful.yaml on these selection seeds of
    replan_bridge_rumor, with its paired interval above zero, and loses on fresh seeds."""
    cfg = config(
        tmp_path,
        f"""scenarios: [replan_bridge_rumor]
seeds: "4,5,6,7,14"
start_policy: {ROOT / "policies" / "careful.yaml"}
first: [{ROOT / "tests" / "policies" / "lucky.yaml"}]
""",
    )
    runs = tmp_path / "runs"
    result = villagelab(
        "search",
        "--study",
        "lucky",
        "--trials",
        "1",
        "--config",
        str(cfg),
        "--runs-dir",
        str(runs),
        "--serial",
    )
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stderr.splitlines() if x.startswith("trial 0"))
    assert "rolled_back" in line and "not confirmed" in result.stderr
    (child,) = [r for r in mlflow_runs(runs, "lucky") if r.data.tags.get("villagelab.trial")]
    assert child.data.tags["villagelab.decision"] == "rolled_back"
    assert "not confirmed" in child.data.tags["villagelab.reason"]
    shown = villagelab("champion", "show", "--runs-dir", str(runs))
    assert "champion: version 1" in shown.stdout and "trial: start" in shown.stdout


def test_a_promotion_registers_a_version_and_rollback_moves_the_alias_back(tmp_path):
    cfg = config(
        tmp_path,
        f"""scenarios: [replan_bridge, room_two_days]
seeds: 0-2
first: [{ROOT / "policies" / "careful.yaml"}]
""",
    )
    runs = tmp_path / "runs"
    result = villagelab(
        "search",
        "--study",
        "climb",
        "--trials",
        "1",
        "--config",
        str(cfg),
        "--runs-dir",
        str(runs),
        "--serial",
    )
    assert result.returncode == 0, result.stderr
    assert "trial 0: promoted" in result.stderr and "confirmed" in result.stderr
    shown = villagelab("champion", "show", "--runs-dir", str(runs))
    assert "champion: version 2" in shown.stdout and "trial: 0" in shown.stdout
    history = villagelab("champion", "history", "--runs-dir", str(runs))
    assert history.returncode == 0 and "climb" in history.stdout
    back = villagelab("champion", "rollback", "--runs-dir", str(runs))
    assert back.returncode == 0 and "version 2 → version 1" in back.stdout
    shown = villagelab("champion", "show", "--runs-dir", str(runs))
    assert "champion: version 1" in shown.stdout and "trial: start" in shown.stdout
    exported = tmp_path / "champion.yaml"
    assert villagelab("champion", "export", str(exported), "--runs-dir", str(runs)).returncode == 0
    from policies import baseline_path, load_policy

    assert load_policy(exported) == load_policy(baseline_path())
    morning = villagelab("report", "--study", "climb", "--runs-dir", str(runs))
    assert morning.returncode == 0 and "Promotions over time" in morning.stdout


def test_a_killed_driver_is_survived_and_every_trial_accounted_for(tmp_path):
    cfg = config(tmp_path, "scenarios: [replan_bridge_rumor, public_fact]\nseeds: 0-3\n")
    runs = tmp_path / "runs"
    command = [
        str(Path(sys.executable).with_name("villagelab")),
        "search",
        "--study",
        "night",
        "--trials",
        "5",
        "--config",
        str(cfg),
        "--runs-dir",
        str(runs),
        "--serial",
    ]
    driver = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    killed_in = None
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and driver.poll() is None:
            if (runs / "optuna.journal").exists():
                try:
                    study = optuna.load_study(study_name="night", storage=journal(runs))
                except KeyError:
                    time.sleep(0.05)
                    continue
                trials = study.get_trials(deepcopy=False)
                running = [t for t in trials if t.state == TrialState.RUNNING]
                if running and any(t.state != TrialState.RUNNING for t in trials):
                    os.kill(driver.pid, signal.SIGKILL)  # mid-trial, no chance to clean up
                    killed_in = running[0].number
                    break
            time.sleep(0.05)
    finally:
        driver.wait(timeout=60)
    assert killed_in is not None, "the driver finished before it could be killed"

    again = subprocess.run(command, check=False, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    study = optuna.load_study(study_name="night", storage=journal(runs))
    trials = study.get_trials(deepcopy=False)
    assert not [t for t in trials if t.state == TrialState.RUNNING]
    failed = [t for t in trials if t.state == TrialState.FAIL]
    assert [t.number for t in failed] == [killed_in]
    requeued = [t for t in trials if t.user_attrs.get("requeued_from") == killed_in]
    assert len(requeued) == 1 and requeued[0].state in (TrialState.COMPLETE, TrialState.PRUNED)
    from experiments.search.study import counted

    assert counted(study) == 5  # the budget, nothing lost, nothing twice
    runs_found = mlflow_runs(runs, "night")
    assert not [r for r in runs_found if r.info.status == "RUNNING"]
    killed = [r for r in runs_found if r.info.status == "KILLED"]
    assert killed  # the dead driver's runs were closed, not left running
    again_child = [
        r for r in runs_found if r.data.tags.get("villagelab.requeued_from") == str(killed_in)
    ]
    assert len(again_child) == 1  # a re-queued trial gets a new MLflow run
    parents = [r for r in runs_found if r.data.tags.get("villagelab.kind") == "search"]
    assert len(parents) == 2 and any("villagelab.resumes" in p.data.tags for p in parents)


def test_a_changed_scenario_file_stops_a_resumed_study(tmp_path):
    scenario = tmp_path / "mine.yaml"
    scenario.write_text((ROOT / "scenarios" / "library" / "secret.yaml").read_text())
    cfg = config(tmp_path, f"scenarios: [{scenario}]\nseeds: 0-1\n")
    runs = tmp_path / "runs"
    args = (
        "search",
        "--study",
        "frozen",
        "--trials",
        "1",
        "--config",
        str(cfg),
        "--runs-dir",
        str(runs),
        "--serial",
    )
    assert villagelab(*args).returncode == 0
    scenario.write_text(
        scenario.read_text().replace("encounter_chance: 0.05", "encounter_chance: 0.06")
    )
    again = villagelab(*args[:4], "2", *args[5:])
    assert again.returncode == 2
    assert "frozen harness and instrument" in again.stderr and "scenario file" in again.stderr
    assert "Traceback" not in again.stderr


def test_local_mode_counts_its_budget_across_sub_studies_and_resumptions(tmp_path):
    cfg = config(tmp_path, 'scenarios: [secret, rumor]\nseeds: "0,1"\n')
    runs = tmp_path / "runs"

    def search(trials: int) -> subprocess.CompletedProcess[str]:
        result = villagelab(
            "search",
            "--study",
            "near",
            "--mode",
            "local",
            "--trials",
            str(trials),
            "--config",
            str(cfg),
            "--runs-dir",
            str(runs),
            "--serial",
        )
        assert result.returncode == 0, result.stderr
        return result

    assert "trials_this_run: 3" in search(3).stdout
    assert "trials_this_run: 2" in search(5).stdout  # the budget is the study's, not a run's
    assert "trials_this_run: 0" in search(5).stdout
    storage = journal(runs)
    subs = [n for n in optuna.study.get_all_study_names(storage) if n.startswith("near@")]
    finished = [
        t
        for n in subs
        for t in optuna.load_study(study_name=n, storage=storage).get_trials(
            states=(TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)
        )
    ]
    assert subs and len(finished) == 5
