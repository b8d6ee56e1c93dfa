"""The reference agent: probes are reads, state round-trips through JSON, memories stay apart."""

from __future__ import annotations

import json

from harness import Episode, ReferenceAgent
from harness.memory import Query, retrieve
from policies import load_policy
from scenarios import load_scenario

from .conftest import ROOT


def run_until(minute: int, seed: int = 0, policy: str = "careful.yaml") -> Episode:
    """An episode stopped mid-way, agents as they are at that moment (census not yet asked)."""
    s = load_scenario("public_fact")
    short = s.model_copy(update={"duration": minute, "census": (), "probes": ()})
    episode = Episode(short, load_policy(ROOT / "policies" / policy), seed)
    episode.run()
    return episode


def test_probe_leaves_the_agent_state_unchanged():
    episode = run_until(20 * 60)
    knowers = 0
    for name, agent in episode.agents.items():
        before = agent.state_hash()
        answer = agent.answer("bakery_closed_day2")
        knowers += answer.value == "true"
        agent.answer("no_such_proposition")
        assert agent.state_hash() == before, name
    assert knowers >= 2  # the probes asked agents who do hold the belief


def test_probe_through_the_harness_changes_nothing_but_the_probe_table():
    episode = run_until(20 * 60)
    hashes = {n: a.state_hash() for n, a in episode.agents.items()}
    for name in episode.agents:
        episode._probe(name, "bakery_closed_day2", "p", "probe", 20 * 60)
    assert {n: a.state_hash() for n, a in episode.agents.items()} == hashes


def test_agent_state_round_trips_through_plain_json():
    episode = run_until(30 * 60)
    for agent in episode.agents.values():
        data = json.loads(json.dumps(agent.to_json()))
        restored = ReferenceAgent.from_json(data, agent.policy)
        assert restored.state_hash() == agent.state_hash()


def test_retrieval_returns_only_the_owners_memories_and_may_return_nothing():
    episode = run_until(30 * 60)
    for name, agent in episode.agents.items():
        got = retrieve(agent.memory, Query("bakery", "plan"), 30 * 60, agent.policy, episode.draws)
        assert all(e.owner == name for e in got)
        assert len(got) <= int(agent.policy["retrieval.top_k"])
        nothing = retrieve(agent.memory, Query("bakery", "plan"), 10**7, agent.policy.replace(
            **{"retrieval.relevance_weight": 0.0, "memory.importance_threshold": 1.0}),
            episode.draws)
        assert nothing == []  # long after everything faded, nothing comes to mind


def test_keeping_sources_is_what_lets_an_agent_name_its_informant():
    def sources(policy: str) -> set:
        ep = run_until(47 * 60, policy=policy)
        return {a.answer("bakery_closed_day2").source for n, a in ep.agents.items() if n != "ana"}

    assert sources("baseline.yaml") <= {None}
    assert len(sources("careful.yaml") - {None}) >= 2
