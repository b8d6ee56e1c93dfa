"""Every metric that guards or scores something can fire on a real run: a planted fault or a
real failure, run through the tick loop and scored from its traces (issue 14)."""

from __future__ import annotations

from functools import cache

import pandas as pd

from harness import run_episode
from harness.agents import AGENT_KINDS
from policies import load_policy
from scenarios import load_scenario
from scorecards import load_definition, score
from scorecards.metrics import METRICS
from scorecards.metrics._base import EpisodeTables

from .conftest import ROOT

CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")


@cache
def episode(scenario: str, agent: str, seed: int = 0) -> EpisodeTables:
    tables = run_episode(load_scenario(scenario), CAREFUL, seed, agent)
    return EpisodeTables({k: v.to_pandas() for k, v in tables.items()})


def value(metric: str, scenario: str, agent: str, seed: int = 0) -> float | None:
    return METRICS[metric].evaluate(episode(scenario, agent, seed))


REFERENCE, SIMPLE = AGENT_KINDS["reference"], AGENT_KINDS["simple"]


def test_a_help_loop_fires_and_the_reference_agent_has_none():
    assert value("help_loops", "room_two_days", "tests.fixtures.agents:Pleading") > 10
    assert value("help_loops", "room_two_days", REFERENCE) == 0.0


def test_milestones_count_every_painting_and_zero_for_an_idle_agent():
    painted = episode("room_two_days", REFERENCE)["events"]
    works = (painted[painted.kind == "milestone"].detail == "display").sum()
    assert works >= 2  # more than one painting in two days ...
    assert value("milestones", "room_two_days", REFERENCE) > 4 * 1  # ... and all of them count
    assert value("milestones", "room_two_days", SIMPLE) == 0.0  # never paints: 0, not absent


def test_isolation_is_checked_against_exposures_and_a_shared_mind_is_caught(monkeypatch):  # type: ignore[no-untyped-def]
    # a shared mind needs one process: in the episode's (behind the boundary, apart, each
    # agent has its own and the planted fault cannot even happen - nor is it caught)
    telepath = "tests.fixtures.agents:Telepath"
    monkeypatch.setenv("VILLAGELAB_ISOLATION", "none")
    assert value("isolation_violations", "rumor", telepath) >= 5
    assert value("fabrications", "rumor", telepath) >= 5  # each is a fabrication too
    monkeypatch.setenv("VILLAGELAB_ISOLATION", "auto")
    # another seed: `episode` is cached by scenario, agent and seed, not by isolation
    assert value("isolation_violations", "rumor", telepath, seed=1) == 0.0
    assert value("isolation_violations", "rumor", SIMPLE) == 0.0
    assert value("isolation_violations", "rumor", REFERENCE) == 0.0


def test_scripted_lines_are_marked_and_never_an_agents_utterance():
    said = episode("mango_recall", REFERENCE)["utterances"]
    scripted = said[said.scripted.fillna(False).astype(bool)]
    assert len(scripted) == 2 and set(scripted.text_by) == {"scenario"}
    assert set(said[~said.scripted.fillna(False).astype(bool)].text_by) <= {"harness", "agent"}


def test_each_claim_of_a_chat_is_its_own_event():
    said = pd.concat([episode("public_fact", REFERENCE, s)["utterances"] for s in (0, 1)])
    said = said[~said.scripted.fillna(False).astype(bool)]
    assert len(said) > 0 and not said.duplicated(["seed", "event_id"]).any()


def test_provenance_to_the_informant_and_to_the_origin_part_ways():
    # the simple agent names who told it, never where it started
    assert value("provenance", "public_fact", SIMPLE) > 0.5
    assert value("provenance_origin", "public_fact", SIMPLE) == 0.0
    assert value("provenance_origin", "public_fact", REFERENCE) > 0.5


def test_supersession_fires_for_an_agent_that_cannot_say_what_replaced_what():
    assert value("supersession", "superseded", REFERENCE) > 0.5
    assert value("supersession", "superseded", SIMPLE) == 0.0


def test_probe_hallucination_fires_on_an_agent_that_asserts_what_it_never_heard():
    confabulating = "tests.fixtures.agents:Confabulator"
    assert value("probe_hallucination", "mango_recall", confabulating) > 0.0
    assert value("probe_hallucination", "mango_recall", REFERENCE) == 0.0


def test_the_spread_floor_breaks_for_a_village_that_keeps_a_public_fact_quiet():
    # the search's near-silent champion of issue 26: it shares only what it finds very useful
    quiet = CAREFUL.with_values({"sharing.usefulness_threshold": 0.84, "sharing.proactive": 0.12})
    hashes = {"harness": "h" * 64, "instrument": "i" * 64, "policy": "p" * 64}

    def floor(policy):  # type: ignore[no-untyped-def]
        runs = [run_episode(load_scenario("public_fact"), policy, s, REFERENCE) for s in (0, 1)]
        tables = {k: pd.concat([r[k].to_pandas() for r in runs]) for k in runs[0]}
        return score(tables, load_definition(), hashes=hashes).guardrails["public_reach"]

    held, broken = floor(CAREFUL), floor(quiet)
    assert held.applicable and held.ok and held.value >= 0.5
    assert broken.applicable and not broken.ok and broken.value < 0.5
