"""A language-model agent of the user's own (issue 47): `examples/diarist.py` calls the
endpoint `--llm-config` names itself, reflects on its notes, words its questions with two
prompt families of its own and records its calls in a table of its own. It runs against the
stand-in and plays the real small model once; tests/test_docs_search_own.py searches it over
its prompts, as the tutorial does."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import ROOT, villagelab

AGENT = "examples.diarist:diarist"
POLICY = str(ROOT / "examples" / "diarist_policy.yaml")


def _config(folder: Path, base_url: str, model: str, **endpoint: object) -> str:
    path = folder / "llm.yaml"
    config = {
        "endpoint": {"base_url": base_url, "model": model, "timeout_s": 120, **endpoint},
        "prices": {model: {"input": 0.15, "output": 0.6}},
    }
    path.write_text(json.dumps(config))
    return str(path)


def _lines(stdout: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in stdout.splitlines() if ": " in line)


@pytest.mark.slow
def test_the_diarist_runs_on_the_standin_and_records_its_own_calls(standin, tmp_path):
    config = _config(tmp_path, standin.base_url, "standin-1")
    out = tmp_path / "run"
    ran = villagelab(
        *("run", "--agent", AGENT, "--llm-config", config, "--policy", POLICY),
        *("--scenario", "public_fact", "--seeds", "0", "--serial", "--out", str(out)),
        cwd=ROOT,
    )
    assert ran.returncode in (0, 1), ran.stderr  # scored; a guardrail may break
    calls = pd.read_parquet(out / "traces" / "diarist_calls")
    assert set(calls["purpose"]) == {"choice", "reflection"}
    assert (calls["tokens_in"] > 0).all() and (calls["cost_usd"] > 0).all()
    lines = _lines(ran.stdout)
    assert int(lines["usage_diarist_calls.rows"]) == len(calls) == standin.stats()["completions"]
    assert "llm_calls" not in lines  # villagelab's LLM agent's lines are its own
    # the prompts are its code: the model it is given is part of its hash as well
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["agent_path"] == AGENT


@pytest.mark.real_model
@pytest.mark.slow
def test_the_diarist_plays_the_real_model_to_a_scored_end(real_model, tmp_path):
    config = _config(tmp_path, real_model.base_url, real_model.model)
    out = tmp_path / "real"
    ran = villagelab(
        *("run", "--agent", AGENT, "--llm-config", config, "--policy", POLICY),
        *("--scenario", "public_fact", "--seeds", "0", "--serial", "--out", str(out)),
        cwd=ROOT,
    )
    assert ran.returncode in (0, 1), ran.stderr
    assert "episodes: 1 ok, 0 not ok" in ran.stdout
    calls = pd.read_parquet(out / "traces" / "diarist_calls")
    assert len(calls) > 0 and (calls["tokens_in"] > 0).all()
    assert calls["outcome"].isin(["answered", "fell_back"]).all()
