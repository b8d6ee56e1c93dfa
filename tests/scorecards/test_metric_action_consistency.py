"""`action_consistency`: in-line decisions among agents who faced a decision informed."""

from __future__ import annotations

import pytest
from scorecard_traces import decision, exposure, frame

from scorecards.metrics import METRICS
from scorecards.metrics.action_consistency import action_consistency


def test_every_decider_counts_and_only_knowing_or_a_kept_good_plan_earns() -> None:
    actions = [
        decision("bo", True, tick=50),  # exposed at 10: in line, knowing
        decision("cy", False, tick=50),  # exposed at 10: not in line
        decision("di", True, tick=50),  # never exposed, turned right: luck, earns nothing
        decision("ed", True, tick=10),  # exposed at the same tick: not before, luck too
        decision("fay", True, tick=50),  # exposed to another proposition only: luck
        {**decision("gus", True, tick=50), "planned": "market"},  # kept a plan that was right
        {"agent": "bo", "action": "walk", "tick": 60},  # not a decision point
    ]
    exposures = [
        exposure("bo", "told", "ana", tick=10),
        exposure("bo", "told", "cy", tick=20),  # a second exposure changes nothing
        exposure("cy", "seen", tick=10),
        exposure("ed", "seen", tick=10),
        exposure("fay", "seen", tick=10, proposition="rain"),
    ]
    episode = {"actions": frame("actions", actions), "exposures": frame("exposures", exposures)}
    assert action_consistency(episode) == pytest.approx(2 / 6)


def test_a_village_where_one_knows_scores_low_however_well_that_one_acts() -> None:
    ana = decision("ana", True, tick=50)
    walked = {"planned": "bakery", "target": "bakery"}  # to the closed bakery, as planned
    others = [{**decision(a, False, tick=50), **walked} for a in ("bo", "cy", "di")]
    episode = {
        "actions": frame("actions", [ana, *others]),
        "exposures": frame("exposures", [exposure("ana", "seen", tick=5)]),
    }
    assert action_consistency(episode) == pytest.approx(1 / 4)


def test_null_in_line_counts_as_not_in_line() -> None:
    actions = [decision("bo", None), decision("cy", True), decision("di", True)]
    exposures = [exposure(a, "seen") for a in ("bo", "cy", "di")]
    episode = {"actions": frame("actions", actions), "exposures": frame("exposures", exposures)}
    assert action_consistency(episode) == pytest.approx(2 / 3)


def test_absent_only_without_decision_points() -> None:
    walk = frame("actions", [{"agent": "bo", "action": "walk"}])
    assert action_consistency({"actions": walk}) is None
    assert action_consistency({}) is None


def test_a_decision_nobody_faced_informed_scores_zero_and_a_lucky_guess_earns_nothing() -> None:
    unexposed = frame("actions", [decision("bo", True)])
    assert action_consistency({"actions": unexposed}) == 0.0
    assert action_consistency({"actions": unexposed, "exposures": frame("exposures", [])}) == 0.0


def point(closes: int = 100) -> dict:
    return {
        "decision_point": "bread_day_2",
        "proposition": "bakery_closed",
        "action": "buy_bread",
        "day": 2,
        "opens": 0,
        "closes": closes,
        "right": ["market"],
    }


def test_an_informed_agent_that_does_not_act_counts_as_not_in_line() -> None:
    actions = [decision("bo", True, tick=50)]
    exposures = [
        exposure("bo", "told", "ana", tick=10),
        exposure("cy", "told", "ana", tick=10),  # exposed, never acts: a miss, not absent
        exposure("di", "told", "ana", tick=120),  # exposed after the point closed: not counted
    ]
    episode = {
        "actions": frame("actions", actions),
        "exposures": frame("exposures", exposures),
        "decision_points": frame("decision_points", [point(closes=100)]),
    }
    assert action_consistency(episode) == pytest.approx(1 / 2)


def test_an_action_before_the_exposure_is_not_informed_whatever_it_did() -> None:
    actions = [decision("bo", True, tick=50), decision("cy", False, tick=50)]
    exposures = [exposure("bo", "told", "ana", tick=60), exposure("cy", "seen", tick=10)]
    episode = {
        "actions": frame("actions", actions),
        "exposures": frame("exposures", exposures),
        "decision_points": frame("decision_points", [point()]),
    }
    assert action_consistency(episode) == 0.0  # bo guessed (uninformed); cy knew and missed


def test_registered_as_a_max_metric_on_unit_range() -> None:
    m = METRICS["action_consistency"]
    assert (m.name, m.direction, m.range, m.internal) == (
        "action_consistency",
        "max",
        (0.0, 1.0),
        False,
    )


def test_everyone_the_point_concerns_counts_even_uninformed_and_idle() -> None:
    """Staying home, never told and never acting, is no way out of a decision point that
    concerns you: bo acted in line, cy, di and ed (whose errand it was) did nothing."""
    concerned = {**point(), "concerns": ["bo", "cy", "di", "ed"]}
    episode = {
        "actions": frame("actions", [decision("bo", True, tick=50)]),
        "exposures": frame("exposures", [exposure("bo", "told", "ana", tick=10)]),
        "decision_points": frame("decision_points", [concerned]),
    }
    assert action_consistency(episode) == pytest.approx(1 / 4)
    without = {**episode, "decision_points": frame("decision_points", [point()])}
    assert action_consistency(without) == 1.0  # a trace written before schema 11
