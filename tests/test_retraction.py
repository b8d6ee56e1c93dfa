"""A retraction (predicate sense `retracts`): the file says what it withdraws, agents hear it,
the reference agent takes the claim as replaced and makes again the plans it had moved, and the
scorecard asks every agent who heard it to have moved on."""

from __future__ import annotations

from functools import cache

import pandas as pd
import pytest

from harness.agents import AGENT_KINDS
from harness.engine.episode import Episode
from policies import load_policy
from scenarios import load_scenario
from scorecards.metrics import METRICS

from .conftest import ROOT
from .test_scenarios import error_of, load_text

RETRACTION = """\
name: notice_retracted
description: a notice is withdrawn
duration: 4h
predicates:
  off_on: {phrase: "does not run on day {object}", sense: unusable}
  retracted: {phrase: "retracted: {object}", sense: retracts}
world:
  places:
    - {id: home}
    - {id: landing}
  roads:
    - {a: home, b: landing, minutes: 5}
agents:
  - {id: ana, home: home}
  - {id: bo, home: home}
truth:
  - {proposition: ferry_off, subject: landing, predicate: off_on, object: "2", value: "true", origin: ana}
  - {proposition: withdrawn, subject: notice, predicate: retracted, object: ferry_off, value: "true", origin: ana, supersedes: ferry_off}
metrics: [supersession]
"""
WORLD = ROOT / "tests" / "unseen_worlds" / "gazette_ferry_retraction.yaml"


def test_a_retraction_names_a_tracked_proposition_and_supersedes_the_same(tmp_path) -> None:
    assert load_text(tmp_path, RETRACTION).truth[1].object == "ferry_off"
    wrong_object = RETRACTION.replace("object: ferry_off,", "object: ferry off on day 2,")
    message = error_of(tmp_path, wrong_object)
    assert "at truth[1].object: the tracked proposition it retracts (sense 'retracts')" in message
    assert "expected one of ['ferry_off'], got 'ferry off on day 2'" in message
    unlinked = RETRACTION.replace(", supersedes: ferry_off}", "}")
    assert (
        "at truth[1].supersedes: 'ferry_off', the proposition it retracts (its object)"
        in error_of(tmp_path, unlinked)
    )


@cache
def _run(policy: str, seed: int) -> dict[str, pd.DataFrame]:
    scenario = load_scenario(WORLD)
    chosen = load_policy(ROOT / "policies" / f"{policy}.yaml")
    tables = Episode(scenario, chosen, seed, AGENT_KINDS["reference"]).run()
    return {k: v.to_pandas() for k, v in tables.items()}


@pytest.mark.parametrize("seed", [0, 1])
def test_who_heard_the_retraction_answers_that_the_claim_was_replaced(seed: int) -> None:
    t = _run("careful", seed)
    heard = set(t["exposures"].query("proposition == 'ferry_notice_retracted'")["agent"])
    probes = t["probes"]
    census = probes[probes["kind"].eq("census")]
    census = census[census["tick"].eq(census["tick"].max())]
    about = census[census["proposition"].eq("ferry_off_day2") & census["agent"].isin(heard)]
    assert len(about) >= 3, "the retraction reached too few to test"
    assert about["answer_replaced_by"].eq("ferry_notice_retracted").all()
    assert METRICS["supersession"].evaluate(t) == 1.0


def test_a_plan_the_claim_had_moved_is_made_again_after_the_retraction() -> None:
    """Who planned the mill shop on the notice's word plans the island market over the ferry
    again (reason routine) once the retraction reaches it."""
    t = _run("careful", 0)
    plans = t["plans"][t["plans"]["goal"].eq("bread@2")]
    heard = t["exposures"].query("proposition == 'ferry_notice_retracted'")
    first = heard.groupby("agent")["tick"].min()
    moved = sorted(set(plans.loc[plans["reason"].eq("retrieved"), "agent"]) & set(first.index))
    assert len(moved) >= 3, "too few moved plans reached by the retraction to test"
    for agent in moved:
        after = plans[plans["agent"].eq(agent) & (plans["tick"] >= first[agent])]
        assert list(after["target"])[-1:] == ["island_market"], agent
        assert list(after["reason"])[-1:] == ["routine"], agent
