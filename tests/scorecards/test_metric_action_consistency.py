"""`action_consistency`: in-line decisions among agents who faced a decision informed."""

from __future__ import annotations

import pytest
from scorecard_traces import decision, exposure, frame

from scorecards.metrics import METRICS
from scorecards.metrics.action_consistency import action_consistency


def test_counts_only_decisions_taken_after_an_exposure() -> None:
    actions = [
        decision("bo", True, tick=50),  # exposed at 10: counts, in line
        decision("cy", False, tick=50),  # exposed at 10: counts, not in line
        decision("di", True, tick=50),  # never exposed: ignored
        decision("ed", True, tick=10),  # exposed at the same tick: not before, ignored
        decision("fay", True, tick=50),  # exposed to another proposition only: ignored
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
    assert action_consistency(episode) == pytest.approx(1 / 2)


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
