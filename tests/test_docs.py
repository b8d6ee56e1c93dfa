"""docs/agents.md is true (issue 13): its example agent is complete, under 80 lines, and the
commands it shows run it through `run`, `search --trials 3` and `gate` against a baseline
made with it; it round-trips its state like any agent."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from harness.engine.contract import CONTRACT_METHODS

from .conftest import ROOT

DOC = (ROOT / "docs" / "agents.md").read_text()


def example_code() -> str:
    section = DOC[DOC.index("## A complete example") :]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)  # type: ignore[union-attr]


def documented_commands() -> list[list[str]]:
    section = DOC[DOC.index("## Running it") :]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL).group(1)  # type: ignore[union-attr]
    return [shlex.split(line) for line in block.splitlines() if line.startswith("villagelab ")]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Where a user keeps the example: the module, and the policy files beside it."""
    (tmp_path / "example_agent.py").write_text(example_code())
    shutil.copytree(ROOT / "policies", tmp_path / "policies")
    return tmp_path


def test_the_example_agent_is_complete_and_short():
    code = example_code()
    assert len(code.splitlines()) < 80
    for method in CONTRACT_METHODS:
        assert f"def {method}(" in code


def test_the_example_continues_identically_after_a_restore(folder, monkeypatch):
    from harness import Episode
    from policies import load_policy
    from scenarios import load_scenario

    monkeypatch.syspath_prepend(str(folder))
    careful, scenario = load_policy(folder / "policies" / "careful.yaml"), load_scenario("secret")
    whole = Episode(scenario, careful, 2, "example_agent:Gossip").run()
    first = Episode(scenario, careful, 2, "example_agent:Gossip")
    first.run(15 * 60)
    saved = json.loads(json.dumps(first.get_state()))
    resumed = Episode(scenario, careful, 2, "example_agent:Gossip")
    resumed.set_state(saved)
    rest = resumed.run()
    assert all(rest[t].equals(whole[t]) for t in whole)
    said = whole["utterances"].to_pandas()
    assert len(said) > 0 and (said.text_by == "agent").all()


@pytest.mark.slow
def test_the_documented_commands_run_the_example_through_run_search_and_gate(cli, folder):
    commands = documented_commands()
    assert [c[1] for c in commands] == ["run", "search", "gate", "gate"]
    results = []
    for command in commands:
        # as written: on a local Ray cluster, each command its own (the workers import the
        # example from the folder as the driver does)
        result = cli(*command[1:], cwd=folder)
        assert result.returncode == 0, (command, result.stdout[-2000:], result.stderr[-2000:])
        results.append(result)
    manifest = json.loads((folder / "out" / "gossip" / "manifest.json").read_text())
    assert manifest["agent_path"] == "example_agent:Gossip" and manifest["agent_hash"]
    assert "trials_this_run: 3" in results[1].stdout
    baseline = json.loads((folder / "gossip-baseline.json").read_text())
    assert baseline["agent_path"] == "example_agent:Gossip"
    assert "gate: pass" in results[3].stdout
    other = cli(*commands[3][1 : commands[3].index("--agent")], cwd=folder)
    assert other.returncode == 3 and "made with another agent" in other.stderr  # the reference
