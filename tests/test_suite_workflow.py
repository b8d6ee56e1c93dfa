"""The workflow suite (`--suite workflow`): a ticket handed over at a shift change, a record
only some may see, a blocked step in a shared plan. It must tell the careful policy from the
naive one and from the simple agent, leave the careful one room to improve, and pay nothing
for silence or for telling everyone."""

from __future__ import annotations

from functools import cache

import pytest

from experiments.evaluation.dispatch import Execution
from experiments.evaluation.evaluate import Instrument, evaluate
from harness.agents.simple import SimpleAgent
from harness.engine.contract import AgentSetup, Answer, Claim, Observation
from harness.engine.episode import Episode
from policies import load_policy
from scenarios import load_scenario
from scenarios.suite import SUITES, InputError, load_suite, suite_path
from scorecards.scorecard import Scorecard

from .conftest import ROOT

SUITE = load_suite(suite_path("workflow"))


class Silent(SimpleAgent):
    """Does its own work and never says a word: hands nothing over, leaks nothing."""

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        return []


class Blabber(SimpleAgent):
    """Remembers every claim and tells all of it to whoever it meets."""

    def __init__(self, setup: AgentSetup) -> None:
        super().__init__(setup)
        self.everything: list[Claim] = []

    def observe(self, obs: Observation) -> None:
        super().observe(obs)
        new = [c for c in self.recent if c not in self.everything]
        self.everything = [
            *[c for c in self.everything if all(n.proposition != c.proposition for n in new)],
            *new,
        ]

    def answer(self, proposition: str, now: int) -> Answer:
        for c in reversed(self.everything):
            if c.proposition == proposition:
                return Answer(c.value, c.modality, c.stated_source)
        return Answer(None, None, None)

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        out = [c for c in self.everything if f"{partner}|{c.proposition}" not in self.told]
        self.told.extend(f"{partner}|{c.proposition}" for c in out)
        return out


@cache
def card(policy: str, agent: str = "reference") -> Scorecard:
    return evaluate(
        load_policy(ROOT / "policies" / f"{policy}.yaml"),
        Instrument.load(SUITE.scenarios),
        SUITE.seeds.selection,
        Execution(serial=True, agent=agent),
    ).scorecard


def objective(policy: str, agent: str = "reference") -> float:
    value = card(policy, agent).objective
    assert value is not None
    return value


def test_the_suite_is_named_and_its_scenarios_load() -> None:
    assert SUITES["workflow"] == ROOT / "scenarios" / "workflow.yaml"
    assert SUITE.scenarios == ("workflow_handoff", "workflow_access", "workflow_blocked_step")
    for name in SUITE.scenarios:
        assert "handoff_completeness" in load_scenario(name).metrics or name.endswith("step")


@pytest.mark.slow
def test_careful_separates_from_baseline_and_simple_without_saturating() -> None:
    careful = objective("careful")
    assert careful < 0.95  # room left for a search
    assert careful - objective("baseline") >= 0.1
    assert careful - objective("careful", "simple") >= 0.1
    assert card("careful").guardrails_ok
    assert not card("baseline").guardrails_ok  # it hands the file to the counter


@pytest.mark.slow
def test_silence_and_telling_everyone_do_not_pay() -> None:
    silent = card("careful", "tests.test_suite_workflow:Silent")
    blabber = card("careful", "tests.test_suite_workflow:Blabber")
    handed = {
        s: v["handoff_completeness"].mean
        for s, v in silent.scenarios.items()
        if "handoff_completeness" in v
    }
    assert handed and all(v == 0.0 for v in handed.values())  # nothing handed over
    assert objective("careful") - objective("careful", "tests.test_suite_workflow:Silent") >= 0.1
    # telling everyone hands the record over, and breaks the access guardrail
    assert blabber.scenarios["workflow_handoff"]["handoff_completeness"].mean == 1.0
    assert not blabber.guardrails["containment"].ok
    assert all(blabber.scenarios[s]["containment"].mean < 0.5 for s in handed)
    assert objective("careful", "tests.test_suite_workflow:Blabber") < objective("careful")


@pytest.mark.slow
def test_the_promised_callback_displaces_the_stock_check_of_the_one_who_took_it_over() -> None:
    """The callback (a gathering of priority 2) outweighs Dan's 15:00 stock check (priority
    1): careful Dan drops it for the flat, traced as displaced; the point is Dan's alone, so
    Nell and Mia, who know and stay away, are not misses. The simple agent plans no callback."""

    def consistency(policy: str, agent: str = "reference") -> float | None:
        return card(policy, agent).scenarios["workflow_handoff"]["action_consistency"].mean

    careful = consistency("careful")
    assert careful is not None and careful >= 0.8
    assert consistency("careful", "simple") == 0.0
    tables = Episode(
        load_scenario("workflow_handoff"),
        load_policy(ROOT / "policies" / "careful.yaml"),
        0,
        "harness.agents.reference:reference_agent",
    ).run()
    plans = tables["plans"].to_pylist()
    assert {(p["goal"], p["reason"]) for p in plans if p["agent"] == "dan"} >= {
        ("t42_callback@1", "invited"),
        ("stock_check@1", "displaced"),
    }
    labelled = [a for a in tables["actions"].to_pylist() if a["decision_point"] is not None]
    assert [(a["agent"], a["target"]) for a in labelled] == [("dan", "home_cy")]


def test_an_unknown_suite_is_refused_naming_the_workflow_suite() -> None:
    with pytest.raises(InputError, match=r"unknown suite 'workflows'; expected one of .*workflow"):
        suite_path("workflows")
