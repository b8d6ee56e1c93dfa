"""`stale_action_rate`, `time_to_replan`, `time_to_replan_group`: acting on what one knows."""

from __future__ import annotations

from typing import Any

import pytest
from scorecard_traces import answer, decision, exposure, frame

from scorecards.metrics.stale_action_rate import stale_action_rate
from scorecards.metrics.time_to_replan import time_to_replan
from scorecards.metrics.time_to_replan_group import time_to_replan_group


def _decision(
    agent: str,
    in_line: bool | None,
    tick: int,
    horizon: int | None = 10,
    proposition: str = "bakery_closed",
) -> dict[str, Any]:
    return {**decision(agent, in_line, tick=tick, proposition=proposition), "horizon": horizon}


def _episode(
    actions: list[dict],
    exposures: list[dict],
    probes: list[dict] | None = None,
) -> dict:
    return {
        "actions": frame("actions", actions),
        "exposures": frame("exposures", exposures),
        "probes": frame("probes", probes or []),
    }


def test_stale_counts_actions_against_a_fact_known_a_horizon_earlier() -> None:
    actions = [
        _decision("bo", False, 50),  # exposed at 10 <= 50 - 10: eligible, stale
        _decision("cy", True, 50),  # exposed at 40 <= 40: eligible, in line
        _decision("di", False, 50),  # exposed at 41 > 40: too recent, not eligible
        _decision("ed", None, 50),  # exposed at 10: eligible, null in_line counts as stale
        _decision("fay", False, 50),  # never exposed: not eligible
        {"agent": "bo", "action": "walk", "tick": 60},  # no decision point
    ]
    exposures = [
        exposure("bo", "told", "ana", tick=10),
        exposure("cy", "seen", tick=40, value="no"),  # any value counts
        exposure("di", "seen", tick=41),
        exposure("ed", "heard", tick=10),
    ]
    assert stale_action_rate(_episode(actions, exposures)) == pytest.approx(2 / 3)


def test_stale_with_a_null_horizon_needs_an_exposure_strictly_before() -> None:
    same_tick = _episode([_decision("bo", False, 50, None)], [exposure("bo", "seen", tick=50)])
    assert stale_action_rate(same_tick) is None
    before = _episode([_decision("bo", False, 50, None)], [exposure("bo", "seen", tick=49)])
    assert stale_action_rate(before) == 1.0
    zero = _episode([_decision("bo", False, 50, 0)], [exposure("bo", "seen", tick=50)])
    assert stale_action_rate(zero) is None  # a horizon below one tick counts as one


def test_stale_is_absent_like_action_consistency_when_nothing_is_observable() -> None:
    assert stale_action_rate({}) is None
    assert stale_action_rate(_episode([{"agent": "bo", "action": "walk"}], [])) is None
    assert stale_action_rate(_episode([_decision("bo", False, 50)], [])) is None


def test_time_to_replan_from_first_exposure_to_first_in_line_action_after_it() -> None:
    actions = [
        _decision("bo", True, 5),  # in line before any exposure: does not count
        _decision("bo", False, 30),
        _decision("bo", True, 40),  # first in line after bo's exposure at 10: delay 30
        _decision("bo", True, 60),
        _decision("cy", True, 25),  # cy exposed at 20: delay 5
        _decision("di", False, 30),  # di exposed at 20, never in line: censored at 100 -> 80
        _decision("ed", True, 30),  # never exposed: not counted
    ]
    exposures = [
        exposure("bo", "told", "ana", tick=10),
        exposure("bo", "told", "cy", tick=15),
        exposure("cy", "seen", tick=20),
        exposure("di", "seen", tick=20),
    ]
    census = [answer("bo", "yes", tick=100), answer("bo", "yes", tick=90)]
    episode = _episode(actions, exposures, census)
    assert time_to_replan(episode) == pytest.approx((30 + 5 + 80) / 3)
    assert time_to_replan_group(episode) == 80.0


def test_without_a_census_the_end_is_the_last_recorded_tick() -> None:
    episode = _episode([_decision("bo", False, 30)], [exposure("bo", "seen", tick=20)])
    episode["events"] = frame("events", [{"kind": "plan", "tick": 70}])
    assert time_to_replan(episode) == 50.0


def test_group_is_the_last_member_per_proposition_averaged_over_propositions() -> None:
    actions = [
        _decision("bo", True, 20),  # bridge: delay 10
        _decision("cy", True, 40),  # bridge: delay 30
        _decision("bo", True, 14, proposition="rain"),  # rain: delay 4
    ]
    exposures = [
        exposure("bo", "seen", tick=10),
        exposure("cy", "seen", tick=10),
        exposure("bo", "seen", tick=10, proposition="rain"),
    ]
    episode = _episode(actions, exposures)
    assert time_to_replan(episode) == pytest.approx((10 + 30 + 4) / 3)
    assert time_to_replan_group(episode) == pytest.approx((30 + 4) / 2)


def test_replan_is_absent_without_an_exposed_decider() -> None:
    assert time_to_replan({}) is None
    assert time_to_replan_group(_episode([_decision("bo", True, 5)], [])) is None
