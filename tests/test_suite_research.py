"""The research suite separates what it is for: run serially on its selection seeds, the
careful policy beats the naive baseline and the simple agent by at least 0.1 of objective,
and does not saturate it (below 0.95); a silent agent scores nothing on its metrics."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path
from statistics import fmean
from typing import Any

import pyarrow as pa
import pytest

from harness.agents.simple import SimpleAgent
from harness.engine.contract import Answer, Claim, Modality
from harness.engine.episode import Episode
from policies import load_policy
from scenarios import load_scenario, load_suite
from scenarios.suite import SUITES, InputError, suite_path
from scorecards._rules import objectives, per_seed_mean
from scorecards.definition import load_definition
from scorecards.scorecard import Values, measure

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = "harness.agents.reference:reference_agent"
SIMPLE = "harness.agents.simple:SimpleAgent"
SILENT = "tests.test_suite_research:Silent"
HEDGER = "tests.test_suite_research:Hedger"


class Silent:
    """Hears everything, says nothing, answers nothing, keeps its routine: the dumbest agent."""

    def __init__(self, setup: Any) -> None:
        self.name = setup.name

    def observe(self, obs: Any) -> None:
        pass

    def decide(self, now: int) -> list:
        return []

    def wake_at(self, now: int) -> int:
        return 1 << 40

    def converse(self, partner: str, groups: tuple, now: int) -> list[Claim]:
        return []

    def answer(self, proposition: str, now: int) -> Answer:
        return Answer(None, None, None)

    def get_state(self) -> dict:
        return {}

    def set_state(self, state: dict) -> None:
        pass

    def drain_diagnostics(self) -> list:
        return []


class Hedger(SimpleAgent):
    """The simple agent hedging everything it says and answers as a rumor: it keeps every
    conflict open and every likely thing likely, and understates every certain one."""

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        said = super().converse(partner, partner_groups, now)
        return [replace(c, modality=Modality.RUMOR) for c in said]

    def answer(self, proposition: str, now: int) -> Answer:
        a = super().answer(proposition, now)
        return a if a.value is None else replace(a, modality=Modality.RUMOR)


@cache
def _values(policy: str, agent: str) -> Values:
    """Every metric of the research suite on its selection seeds, serially, per scenario and
    seed: what the scorecard summarises."""
    suite = load_suite("research")
    chosen = load_policy(ROOT / "policies" / f"{policy}.yaml")
    parts: dict[str, list[pa.Table]] = {}
    applicable = {}
    for name in suite.scenarios:
        scenario = load_scenario(name)
        applicable[name] = scenario.metrics
        for seed in suite.seeds.selection:
            for table, rows in Episode(scenario, chosen, seed, agent).run().items():
                parts.setdefault(table, []).append(rows)
    traces = {t: pa.concat_tables(rows, promote_options="default") for t, rows in parts.items()}
    return measure(traces, load_definition(), applicable)


def _objective(policy: str, agent: str = REFERENCE) -> float:
    """The suite's objective: per seed the mean over scenarios, then the mean over seeds."""
    return fmean(per_seed_mean(objectives(_values(policy, agent), load_definition())).values())


def _mean(policy: str, agent: str, scenario: str, metric: str) -> float | None:
    per_seed = _values(policy, agent).get(scenario, {}).get(metric)
    return None if not per_seed else fmean(per_seed.values())


def test_the_research_suite_is_named_and_lists_its_scenarios() -> None:
    assert suite_path("research") == SUITES["research"]
    suite = load_suite("research")
    assert set(suite.scenarios) == {
        "research_citations",
        "research_retraction",
        "research_conflict",
        "research_revision",
    }
    declared = {m for name in suite.scenarios for m in load_scenario(name).metrics}
    assert {"retraction_reach", "conflicts_kept", "provenance_origin", "supersession"} <= declared


def test_a_misspelt_suite_is_refused_naming_the_research_suite() -> None:
    with pytest.raises(
        InputError,
        match=r"unknown suite 'reseach'; expected one of main, companion, workflow, research",
    ):
        suite_path("reseach")


@pytest.mark.slow
def test_careful_separates_from_the_baseline_and_the_simple_agent_without_saturating() -> None:
    careful = _objective("careful")
    assert careful < 0.95
    assert careful - _objective("baseline") >= 0.1
    assert careful - _objective("careful", SIMPLE) >= 0.1


@pytest.mark.slow
def test_the_new_metrics_move_where_they_are_for() -> None:
    # a retraction word of mouth must carry: the baseline forgets whose the claim was and
    # tells fewer of those who cited it
    careful = _mean("careful", REFERENCE, "research_retraction", "retraction_reach")
    baseline = _mean("baseline", REFERENCE, "research_retraction", "retraction_reach")
    assert careful is not None and baseline is not None and careful > baseline
    # the simple agent takes the last side it heard at its word: no conflict kept
    kept = _mean("careful", REFERENCE, "research_conflict", "conflicts_kept")
    fiat = _mean("careful", SIMPLE, "research_conflict", "conflicts_kept")
    assert kept is not None and fiat is not None and kept - fiat >= 0.5


@pytest.mark.slow
def test_the_revision_and_the_replication_are_scored_on_the_new_language() -> None:
    # the revision is one truth with successive values: Kit is asked the current pool and the
    # one it replaced; careful answers both as hedged as the evidence, the baseline as certain
    revision = load_scenario("research_revision")
    assert [len(t.timeline) for t in revision.truth] == [2]
    kit = _mean("careful", REFERENCE, "research_revision", "probe_recall")
    assert kit is not None and kit >= 0.6
    assert _mean("baseline", REFERENCE, "research_revision", "probe_recall") == 0.0
    # the replication has two origins: hardening it for one who heard a single lab is false
    # certainty, which the baseline shows and careful does not
    citations = load_scenario("research_citations")
    assert any(len(t.starts_with) == 2 for t in citations.truth)
    hardened = _mean("baseline", REFERENCE, "research_citations", "false_certainty_rate")
    assert _mean("careful", REFERENCE, "research_citations", "false_certainty_rate") == 0.0
    assert hardened is not None and hardened > 0.0


@pytest.mark.slow
def test_a_silent_agent_scores_nothing() -> None:
    """Silence is not caution: nobody hears, knows or names anything, so the weighted
    knowledge metrics are 0 and the new ones have nothing to measure (absent), never 1."""
    assert _objective("careful", SILENT) <= 0.2
    for scenario in ("research_retraction", "research_conflict"):
        assert _mean("careful", SILENT, scenario, "reach") == 0.0
    assert _mean("careful", SILENT, "research_retraction", "retraction_reach") is None
    assert _mean("careful", SILENT, "research_conflict", "conflicts_kept") is None


@pytest.mark.slow
def test_hedging_everything_does_not_pay() -> None:
    """Keeping every conflict open by hedging everything wins conflicts_kept and loses more on
    the certain findings it understates (understatement_rate, probe_recall)."""
    assert _mean("careful", HEDGER, "research_conflict", "conflicts_kept") == 1.0
    assert _objective("careful") - _objective("careful", HEDGER) >= 0.1
