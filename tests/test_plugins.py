"""Agents as plug-ins (issue 13): --agent NAME|module:Factory on every command that runs
episodes, the villagelab.agents entry-point group, the agent's code hashed into what a run
writes, and agents that do not keep the contract refused before anything runs."""

from __future__ import annotations

import json
import os
import shlex

import pytest

from .conftest import ROOT

CAREFUL = str(ROOT / "policies" / "careful.yaml")
QUOTING = "tests.fixtures.agents:Quoting"

# every command that runs episodes, as a user would call it, given where to write
COMMANDS = {
    "run": lambda tmp: [
        *shlex.split("run --scenario public_fact --seeds 0 --serial"),
        *("--policy", CAREFUL, "--out", str(tmp / "out")),
    ],
    "search": lambda tmp: [
        *shlex.split("search --study s --trials 1 --serial"),
        *("--runs-dir", str(tmp / "out")),
    ],
    "gate": lambda tmp: [
        *("gate", "--policy", CAREFUL, "--serial"),
        *("--baseline", str(tmp / "out" / "baseline.json")),
    ],
    "sweep": lambda tmp: shlex.split(
        "sweep --param trust.prior --values 0.5 --scenario public_fact --seeds 0 --serial"
    ),
    "bench": lambda tmp: ["bench", "--agents", "2"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_takes_agent_and_refuses_an_unknown_name(cli, tmp_path, command):
    assert "--agent NAME|module:Factory" in cli(command, "--help").stdout
    result = cli(*COMMANDS[command](tmp_path), "--agent", "nosuch")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--agent 'nosuch'" in result.stderr
    assert "registered agents: reference, simple" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()  # refused before anything was written


def test_an_import_path_that_does_not_import_names_what_was_tried(cli, tmp_path):
    for bad, said in (
        ("pkg:Missing", "cannot import module 'pkg'"),
        ("tests.fixtures.agents:Missing", "has no 'Missing'"),
    ):
        result = cli(*COMMANDS["run"](tmp_path), "--agent", bad)
        assert result.returncode == 2 and said in result.stderr, result.stderr
        assert f"--agent {bad!r}" in result.stderr and "registered agents" in result.stderr
        assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("factory", ["tests.fixtures.agents:Mute", "tests.fixtures.agents:mute"])
def test_an_agent_missing_a_contract_method_is_refused_naming_it(cli, tmp_path, factory):
    """A class is checked as it is; a factory function by the first agent it makes — either
    way before any episode runs."""
    result = cli(*COMMANDS["run"](tmp_path), "--agent", factory)
    assert result.returncode == 2, result.stderr
    assert "lacks the contract method converse" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_user_agent_runs_by_import_path_and_its_code_is_hashed_into_the_manifest(cli, tmp_path):
    result = cli(*COMMANDS["run"](tmp_path), "--agent", QUOTING)
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["agent"] == manifest["agent_path"] == QUOTING
    assert len(manifest["agent_hash"]) == 24
    reference = json.loads(
        (ROOT / "scorecards" / "baseline.json").read_text()
    )  # made with the reference agent
    assert reference["agent_path"] == "harness.agents.reference:reference_agent"
    assert reference["agent_hash"] != manifest["agent_hash"]
    again = cli(*COMMANDS["run"](tmp_path), "--agent", "simple")  # same folder, other agent
    assert again.returncode == 2 and "another run" in again.stderr and "agent" in again.stderr


def test_the_agent_hash_follows_the_agents_code_only():
    from harness.agents.registry import resolve

    reference, simple = resolve("reference"), resolve("simple")
    assert reference.hash != simple.hash
    assert resolve("harness.agents.simple:SimpleAgent").hash == simple.hash  # a name is a path


def test_what_episodes_used_is_reported_by_the_agents_factory_or_summed():
    from harness.agents.registry import resolve

    usages = [{"calls": 2.0, "cache_hits": 1.0, "tokens_in": 30.0, "paid_in": 10.0}, {}]
    # an agent whose factory declares nothing: the episodes' usage summed, named as such
    assert resolve("simple").usage_metrics(usages) == {
        "usage_calls": 2.0,
        "usage_cache_hits": 1.0,
        "usage_tokens_in": 30.0,
        "usage_paid_in": 10.0,
    }
    assert resolve("simple").usage_metrics([{}, {}]) == {}  # nothing used: nothing to log
    # the LLM agent's factory reports its calls (unconfigured: no price, so no cost)
    llm = resolve("llm")
    reported = llm.usage_metrics(usages)
    assert reported["llm_calls"] == 2.0 and reported["llm_cache_hit_rate"] == 0.5
    assert "llm_cost_usd" not in reported and llm.facts == {}


def test_an_installed_package_registers_a_name_through_the_entry_point_group(cli, tmp_path):
    """A distribution's entry points (here a bare .dist-info on the path, as pip would leave
    one) add a name to --agent and to its help."""
    site = tmp_path / "site"
    info = site / "quoting_agents-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: quoting-agents\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[villagelab.agents]\nquoting = {QUOTING}\n")
    env = {"PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    assert "reference | simple | llm | quoting | module:Factory" in " ".join(
        cli("run", "--help", env=env).stdout.split()
    )
    result = cli(*COMMANDS["run"](tmp_path), "--agent", "quoting", env=env)
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert (manifest["agent"], manifest["agent_path"]) == ("quoting", QUOTING)


@pytest.mark.slow
def test_a_resumed_study_refuses_another_agent(cli, tmp_path):
    config = tmp_path / "tiny.yaml"
    config.write_text("scenarios: [public_fact]\nseeds: 0\n")
    search = [
        *shlex.split("search --study bound --trials 2"),
        *("--config", str(config), "--runs-dir", str(tmp_path / "runs"), "--serial"),
    ]
    first = cli(*search[:4], "1", *search[5:])  # the reference agent
    assert first.returncode == 0, first.stderr
    (tmp_path / "my_agent.py").write_text(  # another agent, with something to search
        "from harness.agents.simple import SimpleAgent\n\n\n"
        "class Mine(SimpleAgent):\n    policy_surface = ('sharing',)\n"
    )
    other = cli(*search, "--agent", "my_agent:Mine", cwd=tmp_path)
    assert other.returncode == 2, other.stderr
    reference = "harness.agents.reference:reference_agent"
    assert f"searches policies for the agent {reference}" in other.stderr
    assert f"--agent {reference}" in other.stderr
    same = cli(*search)  # the same agent continues the study
    assert same.returncode == 0, same.stderr


@pytest.mark.slow
def test_the_gate_refuses_a_baseline_made_with_another_agent(cli, tmp_path):
    result = cli("gate", "--policy", CAREFUL, "--serial", "--agent", "simple")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "made with another agent" in result.stderr
    assert "harness.agents.reference:reference_agent" in result.stderr


def test_the_cli_finds_a_module_in_the_current_folder(cli, tmp_path):
    """module:Factory resolves from where the command runs, as python -m would."""
    (tmp_path / "my_agent.py").write_text(
        "from harness.agents.simple import SimpleAgent\n\n\nclass Mine(SimpleAgent):\n    pass\n"
    )
    result = cli(*COMMANDS["run"](tmp_path), "--agent", "my_agent:Mine", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["agent_path"] == "my_agent:Mine"
