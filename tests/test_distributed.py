"""Past one machine, on real engines started here on loopback: a PostgreSQL study driven by two
processes at once, an MLflow tracking server, and a Ray cluster a search attaches to."""

from __future__ import annotations

import itertools
import json
import shlex
import subprocess
from pathlib import Path

from harness.agents.reference import reference_agent
from harness.engine.declared import declarations_of
from harness.engine.schema import trace_names

from .conftest import ROOT, villagelab
from .servers import EXE, QUIET

# the harness's tables and those the reference agent declares (a character's lessons)
TABLES_WRITTEN = trace_names(d.name for d in declarations_of(reference_agent))


def test_two_drivers_share_a_postgresql_study(tmp_path, postgres, mlflow_server):
    import optuna
    from mlflow.tracking import MlflowClient
    from optuna.trial import TrialState

    cfg = tmp_path / "search.yaml"
    cfg.write_text(
        "scenarios: [replan_bridge, room_two_days]\nseeds: 0-2\n"
        f"first: [{Path(__file__).parent.parent / 'policies' / 'careful.yaml'}]\n"
    )
    command = [
        EXE,
        "search",
        "--study",
        "shared",
        "--trials",
        "6",
        "--config",
        str(cfg),
        "--runs-dir",
        str(tmp_path / "runs"),
        "--storage",
        postgres,
        "--tracking-uri",
        mlflow_server,
        "--serial",
    ]
    drivers = [
        subprocess.Popen(
            command, env=QUIET, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [d.communicate(timeout=600) for d in drivers]
    for d, (_, err) in zip(drivers, outputs):
        assert d.returncode == 0, err
    study = optuna.load_study(study_name="shared", storage=postgres)
    trials = study.get_trials(deepcopy=False)
    assert not [t for t in trials if t.state == TrialState.RUNNING]
    assert 6 <= len(trials) <= 7  # the budget; each driver may finish the one it had asked
    drivers_seen = {t.user_attrs["driver"] for t in trials}
    assert len(drivers_seen) == 2  # both processes drove the one study
    client = MlflowClient(tracking_uri=mlflow_server, registry_uri=mlflow_server)
    experiment = client.get_experiment_by_name("shared")
    runs = client.search_runs([experiment.experiment_id], max_results=1000)
    children = {
        r.data.tags["villagelab.trial"]: r
        for r in runs
        if r.data.tags.get("villagelab.kind") == "trial"
    }
    assert sorted(children, key=int) == [str(t.number) for t in trials]  # all accounted for
    assert all(r.info.status == "FINISHED" for r in children.values())
    for run in children.values():  # uploaded to the server's artifact store
        if run.data.tags["villagelab.decision"] in ("promoted", "rolled_back"):
            listed = {f.path for f in client.list_artifacts(run.info.run_id)}
            assert {"results.json", "scorecard.json", "policy.yaml"} <= listed
    assert len([r for r in runs if r.data.tags.get("villagelab.kind") == "search"]) == 2
    versions = client.search_model_versions("name='villagelab-policy'")
    promoted = [r for r in children.values() if r.data.tags["villagelab.decision"] == "promoted"]
    assert len(versions) == 1 + len(promoted)  # the start policy, then one per promotion
    chain = sorted((int(v.version), v.tags.get("previous")) for v in versions)
    for (number, previous), (before, _) in zip(chain[1:], chain):
        assert previous == str(before)  # serialised: each promotion replaced the one before


def test_a_search_attaches_to_a_ray_cluster(tmp_path, ray_head):
    cfg = tmp_path / "search.yaml"
    cfg.write_text("scenarios: [public_fact, secret]\nseeds: 0-2\n")
    runs = tmp_path / "runs"
    result = subprocess.run(
        [
            EXE,
            "search",
            "--study",
            "cluster",
            "--trials",
            "2",
            "--config",
            str(cfg),
            "--runs-dir",
            str(runs),
            "--ray-address",
            ray_head,
        ],
        check=False,
        env=QUIET,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "trials_this_run: 2" in result.stdout
    # the start champion's traces came back to the driver and were written under its runs folder
    (start,) = (runs / "studies" / "cluster" / "champions").glob("start-*")
    assert (
        len(list(start.glob("traces/*/*/*.parquet"))) == len(TABLES_WRITTEN) * 2 * 3
    )  # tables × scenarios × seeds
    again = villagelab("champion", "show", "--runs-dir", str(runs))
    assert again.returncode == 0 and "champion: version" in again.stdout


def test_several_trials_are_in_flight_when_workers_outnumber_a_trials_episodes(tmp_path, ray_head):
    from mlflow.tracking import MlflowClient

    cfg = tmp_path / "search.yaml"
    cfg.write_text('scenarios: [secret]\nseeds: "0"\n')  # one episode a trial, two workers
    runs = tmp_path / "runs"
    result = subprocess.run(
        [
            EXE,
            "search",
            "--study",
            "flight",
            "--trials",
            "4",
            "--config",
            str(cfg),
            "--runs-dir",
            str(runs),
            "--ray-address",
            ray_head,
        ],
        check=False,
        env=QUIET,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    client = MlflowClient(tracking_uri=f"sqlite:///{runs / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("flight")
    trials = sorted(
        (
            r
            for r in client.search_runs([experiment.experiment_id])
            if r.data.tags.get("villagelab.kind") == "trial"
        ),
        key=lambda r: int(r.data.tags["villagelab.trial"]),
    )
    assert len(trials) == 4
    overlapping = [b for a, b in itertools.pairwise(trials) if b.info.start_time < a.info.end_time]
    assert overlapping  # a trial was asked and submitted before the one before it finished


def test_on_a_cluster_workers_write_traces_to_a_shared_uri(tmp_path, ray_head):
    """`run --traces-uri`: the workers write the traces (byte-identical to a serial run's),
    only measured values come back, and `score` finds the traces through the manifest."""
    shared, local = tmp_path / "shared", tmp_path / "local"
    common = [
        "run",
        "--scenario",
        "public_fact",
        "--scenario",
        "room_two_days",
        "--policy",
        "policies/careful.yaml",
        "--seeds",
        "0-1",
    ]
    remote = subprocess.run(
        [
            EXE,
            *common,
            "--out",
            str(tmp_path / "out"),
            "--ray-address",
            ray_head,
            "--traces-uri",
            shared.as_uri(),
            "--json",
            str(tmp_path / "out" / "card.json"),
        ],
        check=False,
        env=QUIET,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert remote.returncode == 0, remote.stderr
    assert not (tmp_path / "out" / "traces").exists()  # nothing came back to be written here
    serial = villagelab(
        *common, "--out", str(local), "--serial", "--json", str(local / "card.json"), cwd=ROOT
    )
    assert serial.returncode == 0, serial.stderr
    written = sorted(p.relative_to(shared) for p in shared.glob("traces/*/*/*.parquet"))
    assert len(written) == len(TABLES_WRITTEN) * 2 * 2
    assert all((shared / p).read_bytes() == (local / p).read_bytes() for p in written)
    assert (tmp_path / "out" / "card.json").read_text() == (local / "card.json").read_text()
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["traces"] == shared.as_uri()
    rescored = villagelab("score", str(tmp_path / "out"), "--traces-uri", shared.as_uri())
    assert rescored.returncode == 0 and "room_two_days" in rescored.stdout


def test_a_search_on_a_cluster_keeps_every_trials_traces_at_the_shared_uri(tmp_path, ray_head):
    from mlflow.tracking import MlflowClient

    cfg = tmp_path / "search.yaml"
    cfg.write_text(
        f"scenarios: [replan_bridge, room_two_days]\nseeds: 0-2\n"
        f"first: [{ROOT / 'policies' / 'careful.yaml'}]\n"
    )
    runs, shared = tmp_path / "runs", tmp_path / "shared"
    result = subprocess.run(
        [
            EXE,
            "search",
            "--study",
            "kept",
            "--trials",
            "1",
            "--config",
            str(cfg),
            "--runs-dir",
            str(runs),
            "--ray-address",
            ray_head,
            "--traces-uri",
            shared.as_uri(),
        ],
        check=False,
        env=QUIET,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "trial 0: promoted" in result.stderr
    trial = shared / "kept" / "trial-0"
    assert len(list(trial.glob("traces/*/*/*.parquet"))) == len(TABLES_WRITTEN) * 2 * 3
    client = MlflowClient(tracking_uri=f"sqlite:///{runs / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("kept")
    (run,) = [
        r
        for r in client.search_runs([experiment.experiment_id])
        if r.data.tags.get("villagelab.trial") == "0"
    ]
    assert run.data.tags["villagelab.traces"] == trial.as_uri()
    # the champion's report was made from the traces read back from the shared URI
    (folder,) = (runs / "studies" / "kept" / "champions").glob("0-*")
    assert (folder / "report.html").exists() and not (folder / "traces").exists()


def test_workers_on_a_cluster_import_a_user_agent_by_its_path(tmp_path, ray_head):
    """An agent defined outside the five packages runs on a `ray start --head` cluster: what
    travels is its import path, and each worker imports it (issue 13)."""
    out = tmp_path / "out"
    result = subprocess.run(
        [
            EXE,
            "run",
            "--scenario",
            "public_fact",
            "--scenario",
            "secret",
            "--policy",
            "policies/careful.yaml",
            "--seeds",
            "0-1",
            "--workers",
            "2",
            "--ray-address",
            ray_head,
            "--agent",
            "tests.fixtures.agents:Quoting",
            "--out",
            str(out),
        ],
        check=False,
        env=QUIET,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    # the quoting agent leaks the secret: run exits 1 on a broken guardrail (the README's
    # rule), with everything written; any other failure is 2
    broken = "guardrail broken: containment" in result.stderr
    assert result.returncode == (1 if broken else 0), result.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert [e["status"] for e in manifest["episodes"]] == ["ok"] * 4
    assert manifest["agent_path"] == "tests.fixtures.agents:Quoting"
    import pandas as pd

    said = pd.read_parquet(out / "traces" / "utterances")
    assert len(said) > 0 and (said.text_by == "agent").all()  # the user agent's own words


def test_the_documented_example_agent_runs_on_a_cluster(tmp_path, ray_head):
    """docs/agents.md's example, saved in a user's folder, under `run --workers 2` attached to
    a `ray start --head` cluster (issue 13's done-when)."""
    from .test_docs import example_code

    (tmp_path / "example_agent.py").write_text(example_code())
    policy = ROOT / "policies" / "careful.yaml"
    result = subprocess.run(
        [
            *(EXE, "run", "--policy", str(policy), "--ray-address", ray_head),
            *shlex.split("--scenario public_fact --scenario secret --seeds 0-1 --workers 2"),
            *("--agent", "example_agent:Gossip", "--out", str(tmp_path / "out")),
        ],
        check=False,
        env=QUIET,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert [e["status"] for e in manifest["episodes"]] == ["ok"] * 4
    assert manifest["agent_path"] == "example_agent:Gossip"
