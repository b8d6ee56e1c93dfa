"""No claim from nowhere (issue 26): the harness hears a claim only from a speaker who could know
it, records every decision point and the stance a request meets, and lets a refusal stand only
on such a stance."""

from __future__ import annotations

import pandas as pd

from harness import Episode
from policies import load_policy
from scenarios import load_scenario
from scorecards.metrics.fabrications import fabrications
from scorecards.metrics.request_fulfilment import request_fulfilment

from .conftest import ROOT
from .fixtures.agents import Decliner, Liar

CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")


def _run(agent: object, name: str, seed: int = 0) -> dict[str, pd.DataFrame]:
    tables = Episode(load_scenario(name), CAREFUL, seed, agent).run()  # type: ignore[arg-type]
    return {k: v.to_pandas() for k, v in tables.items()}


def test_a_claim_from_nowhere_is_recorded_and_nobody_hears_it() -> None:
    t = _run(Liar, "public_fact")
    (origin,) = {truth.origin for truth in load_scenario("public_fact").truth}
    said = t["utterances"][~t["utterances"]["scripted"]]
    exposures = t["exposures"]
    first = exposures.groupby("agent")["event_id"].min()  # each agent's first exposure
    for row in said.itertuples():
        could_know = row.speaker == origin or first.get(row.speaker, 1 << 62) < row.event_id
        assert row.grounded == could_know, row
    from_nowhere = said[~said["grounded"]]
    assert len(from_nowhere) > 0  # liars speak before anything reached them
    heard = exposures[exposures["channel"] == "told"]
    # no listener was exposed by a claim from nowhere, nor handed it as an observation
    assert not set(zip(from_nowhere.event_id, from_nowhere.listener)) & set(
        zip(heard.event_id, heard.agent)
    )
    claims = t["observations"][t["observations"]["kind"] == "claim"]
    assert not set(zip(from_nowhere.event_id, from_nowhere.listener)) & set(
        zip(claims.event_id, claims.agent)
    )
    assert fabrications(t) >= len(set(from_nowhere.speaker))


def test_the_reference_agent_never_claims_from_nowhere() -> None:
    for name in ("public_fact", "rumor", "secret", "superseded"):
        t = _run("harness.agents.reference:reference_agent", name)
        assert t["utterances"]["grounded"].all(), name
        assert fabrications(t) == 0.0, name


def test_decision_points_are_written_with_the_ticks_they_are_open() -> None:
    t = _run("harness.agents.simple:SimpleAgent", "public_fact")
    points = t["decision_points"]
    assert list(points["decision_point"]) == ["buy_bread_day2"]
    row = points.iloc[0]
    day = 24 * 60 // 5  # ticks a day at five-minute ticks
    assert (row["day"], row["opens"], row["closes"], list(row["right"])) == (
        2,
        day,
        2 * day - 1,
        ["market"],
    )
    decided = t["actions"].dropna(subset=["decision_point"])
    assert set(decided["planned"]) == {"bakery"}  # every errand names the bakery
    # cai knows the bakery, the mill and the market: a guess away from the bakery is right half
    # the time; dara knows only the bakery
    chance = dict(zip(decided["agent"], decided["chance"]))
    assert (chance["cai"], chance["dara"]) == (0.5, 0.0)


def test_a_refusal_stands_only_on_a_stance_the_request_meets() -> None:
    t = _run(Decliner, "picnic_request")
    requests = t["requests"].set_index("request_id")
    assert requests.loc["pastry_from_rowan", "stance"] == "no_sweets"
    assert requests.loc["pastry_from_rowan", "reason"] == "never handles sweets"
    assert pd.isna(requests.loc["pastry_for_picnic", "stance"])
    declines = t["actions"][t["actions"]["action"] == "decline"].set_index("agent")
    assert bool(declines.loc["rowan", "ok"]) is True
    assert bool(declines.loc["blossom", "ok"]) is False  # no stance of hers forbids a pastry
    assert declines.loc["blossom", "reason"] == "the refusal was not accepted"
    assert request_fulfilment(t) == 0.5
