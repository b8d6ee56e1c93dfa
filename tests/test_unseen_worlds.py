"""Worlds we did not write (issue 46): six scenarios written from the docs alone by a writer
who had not read the metrics' code (`tests/unseen_worlds/`), each run with careful.yaml,
baseline.yaml and the simple agent, seeds 0-2.

What they hold:
- careful.yaml breaks no guardrail in any of them;
- it beats baseline.yaml by at least 0.1 in each;
- it beats the simple agent by at least 0.1, or the simple agent breaks a guardrail careful
  holds - feasibility first, as a search compares a candidate with its champion. Where it
  comes to that, `FEASIBILITY` says so and why;
- where the simple agent scores better than careful on some metric, `SIMPLE_AHEAD` names the
  metric and why that is right (a better behaviour of the simple agent's, or a weakness of
  the reference agent's), so that no metric pays it for a worse one unseen.
"""

from __future__ import annotations

from functools import cache

import pytest

from experiments.evaluation.dispatch import Execution
from experiments.evaluation.evaluate import Instrument, evaluate
from policies import load_policy
from scenarios import load_scenario
from scorecards.scorecard import Scorecard

from .conftest import ROOT

pytestmark = pytest.mark.slow

FOLDER = ROOT / "tests" / "unseen_worlds"
WORLDS = sorted(p.stem for p in FOLDER.glob("*.yaml"))
SEEDS = (0, 1, 2)
MARGIN = 0.1

# where careful's lead over the simple agent rests on the simple agent breaking a guardrail
FEASIBILITY = {
    # the simple agent tells the new gate code to everyone it meets: the guards learn it from
    # whoever they meet, the courier and the cleaner too (containment 0); careful tells only
    # whom it judges in on it, and the hand-over rests on Ines and Joss being drawn to chat in
    # the hour they share the gatehouse (seed 1: they are not)
    "depot_code_handover": "containment",
    # the simple agent tells the weavers' cashbox to the potters; careful keeps it, and its
    # talk budget spends day 1 on the scales rumor before the bridge closes at 15:30, so the
    # guilds hear of the bridge late
    "market_day_two_guilds": "containment",
}
# (world, metric) where the simple agent scores better than careful, and why that is right
SIMPLE_AHEAD = {
    ("depot_code_handover", "action_consistency"): "Joss hears of the east gate from anyone",
    ("depot_code_handover", "handoff_completeness"): "the guards hear the code from anyone",
    ("depot_code_handover", "probe_recall"): "Joss and Kaya hear the code from anyone",
    ("depot_code_handover", "supersession"): "the new code reaches more of the guards",
    # careful's word of the retraction reaches fewer by the census, and a summary of the day
    # keeps a source only by the chance its memories held it (the reference agent's fading)
    ("gazette_ferry_retraction", "reach"): "the simple agent tells all it has in every chat",
    ("gazette_ferry_retraction", "provenance"): "careful's summaries lose some sources",
    ("gazette_ferry_retraction", "retraction_reach"): "the simple agent tells all it has",
    # the bridge news spreads late under careful's talk budget (see FEASIBILITY)
    ("market_day_two_guilds", "reach"): "the simple agent tells all it has in every chat",
    ("market_day_two_guilds", "provenance"): "careful's summaries lose some sources",
    ("market_day_two_guilds", "action_consistency"): "the guilds hear of the bridge in time",
    ("market_day_two_guilds", "stale_action_rate"): "the guilds hear of the bridge in time",
    ("market_day_two_guilds", "handoff_completeness"): "the weavers hear of the cashbox",
    ("market_day_two_guilds", "probe_recall"): "Hedda hears of the bridge",
}


@cache
def card(world: str, policy: str, agent: str = "reference") -> Scorecard:
    chosen = load_policy(ROOT / "policies" / f"{policy}.yaml")
    instrument = Instrument.load([str(FOLDER / f"{world}.yaml")])
    return evaluate(chosen, instrument, SEEDS, Execution(serial=True, agent=agent)).scorecard


def broken(c: Scorecard) -> set[str]:
    return {name for name, g in c.guardrails.items() if not g.ok}


def test_there_are_at_least_five_worlds_and_each_validates() -> None:
    assert len(WORLDS) >= 5
    for world in WORLDS:
        assert load_scenario(FOLDER / f"{world}.yaml").name == world
    assert set(FEASIBILITY) <= set(WORLDS)
    assert {w for w, _ in SIMPLE_AHEAD} <= set(WORLDS)


@pytest.mark.parametrize("world", WORLDS)
def test_careful_holds_every_guardrail_and_beats_baseline(world: str) -> None:
    careful, baseline = card(world, "careful"), card(world, "baseline")
    assert not broken(careful), broken(careful)
    assert careful.objective is not None and baseline.objective is not None
    assert careful.objective >= baseline.objective + MARGIN, (careful.objective, baseline.objective)


@pytest.mark.parametrize("world", WORLDS)
def test_careful_beats_the_simple_agent_or_the_simple_agent_is_infeasible(world: str) -> None:
    careful, simple = card(world, "careful"), card(world, "careful", "simple")
    assert careful.objective is not None and simple.objective is not None
    ahead = careful.objective >= simple.objective + MARGIN
    if world in FEASIBILITY:
        assert not ahead, f"{world}: careful now leads outright; drop it from FEASIBILITY"
        assert FEASIBILITY[world] in broken(simple) - broken(careful)
    else:
        assert ahead, (careful.objective, simple.objective)


@pytest.mark.parametrize("world", WORLDS)
def test_no_metric_pays_the_simple_agent_more_without_a_stated_reason(world: str) -> None:
    careful, simple = card(world, "careful"), card(world, "careful", "simple")
    (scenario,) = careful.scenarios
    ahead = set()
    for metric, c in careful.scenarios[scenario].items():
        s = simple.scenarios[scenario].get(metric)
        if s is None:
            continue
        better = s.mean > c.mean if c.direction == "max" else s.mean < c.mean
        if better and abs(s.mean - c.mean) > 1e-9:
            ahead.add(metric)
    stated = {m for w, m in SIMPLE_AHEAD if w == world}
    assert ahead == stated, f"{world}: simple ahead on {sorted(ahead)}, stated {sorted(stated)}"
