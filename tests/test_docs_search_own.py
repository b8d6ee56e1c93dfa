"""docs/tutorials/search-your-own-agent.md works as written (issue 47): its marked commands run,
word for word, in a folder laid out as the README's first command leaves a checkout, with the
example agent's folder `examples/` in it; they validate, run, sweep, search, export and gate
the agent's own knobs and prompt family, and the gate exits 3 once a prompt file is edited."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from .conftest import ROOT
from .llm.llm_servers import start_standin
from .test_docs_tutorials import run, user_folder

PAGE = ROOT / "docs" / "tutorials" / "search-your-own-agent.md"
MARK = re.compile(r"<!-- tutorial-test: (\S+) -->\n```\w*\n(.*?)```", re.DOTALL)


def marked(name: str) -> list[str]:
    return [body for mark, body in MARK.findall(PAGE.read_text()) if mark == name]


def commands(name: str = "own") -> list[str]:
    return [
        line[2:] for block in marked(name) for line in block.splitlines() if line.startswith("$ ")
    ]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return user_folder(tmp_path, "policies", "examples")


@pytest.mark.slow  # a run, a sweep, a search of 8 trials and three gates: a few minutes
def test_the_tutorials_commands_search_and_gate_the_agents_own_surface(checkout: Path):
    steps = commands()
    assert len(steps) == 11 and sum(c.startswith(".venv/bin/villagelab ") for c in steps) == 10
    edit = steps.index('echo "Honestly." >> examples/gossip_wording/hedged.txt')
    for command in steps:
        result = run(command, checkout)
        said = (command, result.stdout[-3000:], result.stderr[-3000:])
        if steps.index(command) > edit:  # the gate after the prompt file was edited
            assert result.returncode == 3, said
            assert "(gossip.wording/hedged.txt)" in result.stderr, said
            continue
        assert result.returncode == 0, said
        if " search " in command:
            assert "4 of them its own" in result.stderr, said
        if " run " in command:  # its own table, written and summed
            assert "usage_gossip_retellings.words:" in result.stdout, said
            assert list((checkout / "out/gossip/traces/gossip_retellings").glob("*/*.parquet"))
    exported = yaml.safe_load((checkout / "my_gossip.yaml").read_text())
    assert set(exported["gossip"]) == {"retell_limit", "name_source", "detour_doubt", "wording"}


@pytest.mark.slow  # a run and a 4-trial search of the model-backed example on the stand-in
def test_the_tutorials_commands_run_and_search_the_model_backed_agent(checkout: Path):
    # the page has the user start the stand-in on port 8765; here it runs on a free port
    standin = start_standin(checkout.parent)
    try:
        (config,) = marked("diarist.yaml")
        assert "http://127.0.0.1:8765/v1" in config
        (checkout / "llm.yaml").write_text(config.replace(":8765/", f":{standin.port}/"))
        steps = commands("diarist")
        assert len(steps) == 2 and " run " in steps[0] and " search " in steps[1]
        results = [run(command, checkout) for command in steps]
    finally:
        standin.kill()
    for command, result in zip(steps, results, strict=True):
        assert result.returncode == 0, (command, result.stdout[-3000:], result.stderr[-3000:])
    lines = dict(ln.split(": ", 1) for ln in results[0].stdout.splitlines() if ": " in ln)
    calls = pd.read_parquet(checkout / "out" / "diarist" / "traces" / "diarist_calls")
    assert int(lines["usage_diarist_calls.rows"]) == len(calls) > 0
    assert set(calls["purpose"]) == {"choice", "reflection"} and (calls["cost_usd"] > 0).all()
    searched = dict(ln.split(": ", 1) for ln in results[1].stdout.splitlines() if ": " in ln)
    assert int(searched["promoted"]) >= 1, results[1].stdout  # as the page says it did
    champion = yaml.safe_load((checkout / searched["champion_policy"]).read_text())
    assert champion["diarist"]["choice"] == "mindful" and champion["diarist"]["heed_doubt"] == 2
    from mlflow.tracking import MlflowClient

    client = MlflowClient(f"sqlite:///{checkout / 'runs' / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("diarist")
    trials = [
        run.data
        for run in client.search_runs([experiment.experiment_id])
        if "villagelab.decision" in run.data.tags
    ]
    assert len(trials) == 4
    for data in trials:  # each trial logs what its calls cost, from the agent's own table
        assert data.metrics["usage_diarist_calls.tokens_in"] > 0
        assert data.metrics["usage_diarist_calls.cost_usd"] > 0
        assert data.params["diarist.choice"] in ("plain", "mindful")
