"""The LLM agent from the command line: run, rerun from the cache, search, bad input, an
endpoint killed mid-run. Everything against the stand-in model over real HTTP."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from llm_servers import config_text

ROOT = Path(__file__).resolve().parents[2]
CAREFUL = str(ROOT / "policies" / "careful.yaml")
pytestmark = pytest.mark.slow


def _config(tmp_path: Path, base_url: str, **sections) -> str:
    path = tmp_path / "llm.yaml"
    path.write_text(
        config_text(base_url, prices={"standin-1": {"input": 0.15, "output": 0.6}}, **sections)
    )
    return str(path)


def _lines(stdout: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in stdout.splitlines() if ": " in line)


def _run(cli, tmp_path, config: str, out: str, *extra: str):
    return cli(
        "run",
        "--agent",
        "llm",
        "--llm-config",
        config,
        "--scenario",
        "public_fact",
        "--scenario",
        "rumor",
        "--policy",
        CAREFUL,
        "--seeds",
        "0-2",
        "--out",
        out,
        "--serial",
        *extra,
        cwd=tmp_path,
    )


def test_run_writes_the_models_words_and_a_rerun_is_free_and_identical(cli, standin, tmp_path):
    config = _config(tmp_path, standin.base_url)
    first = _run(cli, tmp_path, config, "first")
    assert first.returncode == 0, first.stderr
    lines = _lines(first.stdout)
    made = standin.stats()["completions"]  # every call, and the probe of structured_output
    assert int(lines["llm_calls"]) + 1 == made > 1 and lines["llm_cache_hit_rate"] == "0.000"
    manifest = json.loads((tmp_path / "first" / "manifest.json").read_text())
    assert manifest["llm_structured_output"] == "json_schema"
    said = pd.read_parquet(tmp_path / "first" / "traces" / "utterances")
    assert len(said) > 0 and (said["text_by"] == "agent").all()
    assert said["text"].str.contains("told me").any()  # the model's words, verbatim
    assert (tmp_path / "runs" / "llm" / "cache.sqlite").exists()

    again = _run(cli, tmp_path, config, "again")
    assert again.returncode == 0, again.stderr
    lines = _lines(again.stdout)
    assert lines["llm_calls_made"] == "0" and lines["llm_cache_hit_rate"] == "1.000"
    assert standin.stats()["completions"] == made
    calls = pd.read_parquet(tmp_path / "again" / "traces" / "llm_calls")
    assert calls["cache_hit"].all()
    for f in sorted((tmp_path / "first" / "traces").rglob("*.parquet")):
        twin = tmp_path / "again" / f.relative_to(tmp_path / "first")
        if "llm_calls" not in f.parts:
            assert f.read_bytes() == twin.read_bytes(), f


def test_against_a_server_that_refuses_json_schema_auto_finds_the_mode_it_takes(
    cli, standin_factory, tmp_path
):
    """llama-cpp-python's server refuses `json_schema`: `auto` finds `json_object_schema`,
    every call asks that way, and the manifest and `llm_calls` say so."""
    server = standin_factory("--refuse", "json_schema")
    config = _config(tmp_path, server.base_url)
    args = "run --agent llm --scenario public_fact --seeds 0 --hours 12 --serial --out out"
    r = cli(*args.split(), "--llm-config", config, "--policy", CAREFUL, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["llm_structured_output"] == "json_object_schema"
    calls = pd.read_parquet(tmp_path / "out" / "traces" / "llm_calls")
    assert len(calls) > 0 and (calls["structured_output"] == "json_object_schema").all()
    assert calls["outcome"].isin(["valid", "chose_nothing"]).all()
    assert calls["prompt"].str.startswith("system: ").all() and calls["reply"].notna().all()

    # inspect shows an LLM agent's prompt and reply at a tick: the last it called its model
    act = calls[calls.purpose == "act"].iloc[0]
    where = f"inspect out --scenario public_fact --seed 0 --agent {act.agent} --tick {act.tick}"
    shown = cli(*where.split(), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert f"model calls at tick {act.tick}" in shown.stdout
    assert "act — prompt" in shown.stdout and "act — reply (valid)" in shown.stdout
    assert "Your plan: buy_bread at the bakery" in shown.stdout  # the prompt as sent
    assert json.loads(act.reply)["place"] in shown.stdout  # and what the model answered


def test_bad_llm_input_exits_2_before_anything_runs(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("endpoint:\n  base_url: http://127.0.0.1:9/v1\n  model: m\n  timeout_s: -1\n")
    r = _run(cli, tmp_path, str(bad), "out")
    assert r.returncode == 2 and f"{bad}:4: endpoint.timeout_s" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "out").exists()
    r = cli(
        "run",
        "--agent",
        "llm",
        "--scenario",
        "rumor",
        "--policy",
        CAREFUL,
        "--seeds",
        "0",
        "--out",
        "out",
        "--serial",
        cwd=tmp_path,
    )
    assert r.returncode == 2 and "--llm-config" in r.stderr and "Traceback" not in r.stderr
    r = cli(
        "run",
        "--llm-config",
        str(bad),
        "--scenario",
        "rumor",
        "--policy",
        CAREFUL,
        "--seeds",
        "0",
        "--out",
        "out",
        "--serial",
        cwd=tmp_path,
    )
    assert r.returncode == 2 and "only --agent llm" in r.stderr


def test_an_endpoint_killed_mid_episode_is_a_recorded_failure_and_the_run_goes_on(
    cli, standin_factory, tmp_path
):
    warm = standin_factory()  # rumor's episodes are in the cache: they need no endpoint
    r = cli(
        "run",
        "--agent",
        "llm",
        "--llm-config",
        _config(tmp_path, warm.base_url),
        "--scenario",
        "rumor",
        "--policy",
        CAREFUL,
        "--seeds",
        "0-2",
        "--out",
        "warm",
        "--serial",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    server = standin_factory()
    config = _config(tmp_path, server.base_url)

    def kill_midway() -> None:
        for _ in range(3000):  # bounded: at most ~5 minutes
            if server.process.poll() is not None or server.stats()["completions"] >= 60:
                break
            time.sleep(0.1)
        server.kill()

    killer = threading.Thread(target=kill_midway)
    killer.start()
    r = _run(cli, tmp_path, config, "out")
    killer.join(timeout=330)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    statuses = {(e["scenario"], e["seed"]): e["status"] for e in manifest["episodes"]}
    assert len(statuses) == 6  # every episode has its record
    assert statuses[("public_fact", 0)] == "failed" and "connection failed" in r.stderr
    assert "127.0.0.1" in r.stderr
    rest = [statuses[("rumor", s)] for s in (0, 1, 2)]
    assert rest == ["ok", "ok", "ok"], r.stderr  # the rest ran
    assert "episodes: 3 ok, 3 not ok" in r.stdout


def test_a_search_logs_tokens_and_cache_hit_rate_to_mlflow(cli, standin, tmp_path):
    config = _config(tmp_path, standin.base_url)
    (tmp_path / "search.yaml").write_text("scenarios: [rumor]\nseeds: 0-1\n")
    r = cli(
        "search",
        "--study",
        "llm",
        "--trials",
        "5",
        "--config",
        "search.yaml",
        "--runs-dir",
        "runs",
        "--agent",
        "llm",
        "--llm-config",
        config,
        "--serial",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    from mlflow.tracking import MlflowClient

    client = MlflowClient(f"sqlite:///{tmp_path / 'runs' / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("llm")
    trials = [
        run
        for run in client.search_runs([experiment.experiment_id])
        if "villagelab.decision" in run.data.tags
    ]
    assert len(trials) == 5
    logged = [run.data.metrics for run in trials if "llm_calls" in run.data.metrics]
    assert len(logged) == 5  # every trial, pruned or failed ones too, says what it spent
    for metrics in logged:
        assert metrics["llm_tokens_in"] > 0 and 0.0 <= metrics["llm_cache_hit_rate"] <= 1.0
        assert "llm_cost_usd" in metrics
