"""The answer key out of reach (issue 26): an agent that is not ours runs in a process of its
own and is handed only contract records; ours write the same traces either way."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from harness import Episode
from harness.agents.registry import resolve
from harness.engine import boundary
from harness.engine.runner import _execute
from policies import load_policy
from scenarios import load_scenario

from .conftest import ROOT

CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")
REFERENCE = "harness.agents.reference:reference_agent"
SIMPLE = "harness.agents.simple:SimpleAgent"


def _isolation(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    monkeypatch.setenv(boundary.VARIABLE, mode)


def test_plug_ins_are_isolated_by_default_and_ours_are_not() -> None:
    assert not boundary.isolated(REFERENCE)
    assert not boundary.isolated(SIMPLE)
    assert boundary.isolated("tests.fixtures.agents:Liar")
    assert boundary.isolated("example_agent:Gossip")


@pytest.mark.parametrize("agent", [REFERENCE, SIMPLE])
@pytest.mark.parametrize("name", ["public_fact", "room_two_days", "picnic_request"])
def test_our_agents_write_the_same_traces_behind_the_boundary(
    monkeypatch: pytest.MonkeyPatch, agent: str, name: str
) -> None:
    scenario = load_scenario(name)
    _isolation(monkeypatch, "none")
    inside = Episode(scenario, CAREFUL, 1, agent).run()
    _isolation(monkeypatch, "process")
    with Episode(scenario, CAREFUL, 1, agent) as episode:
        assert all(isinstance(a, boundary.RemoteAgent) for a in episode.agents.values())
        apart = episode.run()
    assert set(inside) == set(apart)
    for table in inside:
        assert inside[table].equals(apart[table]), table


def test_an_isolated_agent_finds_nothing_of_the_episode(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_scenario("public_fact")
    _isolation(monkeypatch, "none")  # the control: in this process the episode is in reach
    with Episode(scenario, CAREFUL, 0, "tests.fixtures.agents:Peeker") as episode:
        episode.run()
        found = {f for a in episode.get_state()["agents"].values() for f in a["found"]}
    assert {"stack:Episode", "gc:Scenario", "gc:Truth", "gc:DecisionPoint"} <= found
    _isolation(monkeypatch, "auto")
    with Episode(scenario, CAREFUL, 0, "tests.fixtures.agents:Peeker") as episode:
        episode.run()
        found = {f for a in episode.get_state()["agents"].values() for f in a["found"]}
        pids = boundary.pids(episode.agents.values())
    assert found == set()
    assert len(pids) == len(scenario.agents) and os.getpid() not in pids


def test_an_agents_processes_end_with_its_episode() -> None:
    with Episode(load_scenario("secret"), CAREFUL, 0, "tests.fixtures.agents:Liar") as episode:
        pids = boundary.pids(episode.agents.values())
        episode.run(until=60)
        assert all(Path(f"/proc/{pid}").exists() for pid in pids)
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)


def test_a_plug_ins_code_never_runs_in_the_episodes_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    marks = tmp_path / "imported_by"
    monkeypatch.setenv("VILLAGELAB_TEST_SPY", str(marks))
    monkeypatch.delitem(sys.modules, "tests.fixtures.spy", raising=False)
    boundary.stop()  # the agents' side starts again, in this environment
    choice = resolve("tests.fixtures.spy:Spy")  # checked and hashed beside, not here
    assert choice.surface == () and choice.declared
    record = _execute(load_scenario("secret"), dict(CAREFUL), 0, choice.ref)
    assert record.status == "ok"
    assert "tests.fixtures.spy" not in sys.modules
    assert "VILLAGELAB_SPY_IMPORTED" not in os.environ
    importers = {int(line) for line in marks.read_text().split()}
    assert importers and os.getpid() not in importers


def test_a_crash_behind_the_boundary_reads_as_it_would_in_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scenario = load_scenario("secret")
    details = []
    for mode in ("none", "process"):
        _isolation(monkeypatch, mode)
        record = _execute(scenario, dict(CAREFUL), 0, "tests.fixtures.agents:broken")
        details.append((record.status, record.error))
    assert details[0] == details[1] == ("crashed", "RuntimeError: broken on purpose")


def test_a_reply_holding_anything_but_contract_records_is_refused() -> None:
    record = _execute(load_scenario("secret"), dict(CAREFUL), 0, "tests.fixtures.agents:Smuggler")
    assert record.status == "crashed"
    assert "an agent's reply holds a pathlib" in (record.error or "")


def test_an_agents_process_is_forked_with_the_policys_modules_already_imported() -> None:
    # a Policy travels in every setup: a fork that imported `policies` itself built the policy's
    # validating models again, per agent and episode (most of an isolated agent's start)
    assert boundary.beside(
        "tests.fixtures.bare:imported", "tests.fixtures.bare:imported", "policies"
    )
