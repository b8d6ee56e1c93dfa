"""Calibration against Generative Agents' Valentine's party (issue 14): with careful.yaml the
word reaches between 35 % and 70 % of the village over two days (the paper: 52 %), and only
agents who heard of the party and decided to go come to it."""

from __future__ import annotations

from functools import cache

from harness import run_episode
from harness.agents import AGENT_KINDS
from policies import load_policy
from scenarios import load_scenario
from scorecards.metrics import METRICS
from scorecards.metrics._base import EpisodeTables

from .conftest import ROOT

SEEDS = range(5)


@cache
def party(seed: int) -> EpisodeTables:
    careful = load_policy(ROOT / "policies" / "careful.yaml")
    tables = run_episode(load_scenario("valentine_party"), careful, seed, AGENT_KINDS["reference"])
    return EpisodeTables({k: v.to_pandas() for k, v in tables.items()})


def test_word_of_the_party_reaches_a_plausible_share_of_the_village():
    reach = [METRICS["reach"].evaluate(party(s)) for s in SEEDS]
    assert 0.35 <= sum(reach) / len(reach) <= 0.70, reach
    assert min(reach) < max(reach)  # who meets whom varies by seed


def test_only_those_who_heard_and_decided_come():
    for seed in SEEDS:
        t = party(seed)
        exposed = t["exposures"].groupby("agent").tick.min()
        acts = t["actions"]
        came = acts[(acts.action == "meet") & (acts.target == "cafe") & acts.ok.astype(bool)]
        guests = came[came.agent != "isabella"]
        assert len(guests) > 0
        assert all(exposed.get(a, 1 << 40) < tick for a, tick in zip(guests.agent, guests.tick))
        # hearing is not going: some who heard stayed away (they decided against it)
        assert len(exposed) - 1 > guests.agent.nunique()
