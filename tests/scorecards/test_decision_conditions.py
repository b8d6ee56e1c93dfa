"""Decision points decided by several propositions (`when: {all_of | any_of}`): an agent is
informed when its exposures settle the condition on the propositions' true values."""

from __future__ import annotations

from typing import Any

import pytest
from scorecard_traces import decision, exposure, fact, frame

from scorecards.metrics.action_consistency import action_consistency
from scorecards.metrics.stale_action_rate import stale_action_rate
from scorecards.metrics.time_to_replan import time_to_replan


def point(when: str, closes: int = 100) -> dict[str, Any]:
    return {
        "decision_point": "picnic",
        "proposition": None,
        "action": "meet",
        "day": 2,
        "opens": 0,
        "closes": closes,
        "right": ["meadow"],
        "when": when,
        "propositions": ["bridge_out", "ford_out"],
    }


def act(agent: str, in_line: bool, tick: int = 50) -> dict[str, Any]:
    # the harness labels a compound point's actions with no single proposition
    row = {**decision(agent, in_line, tick=tick), "decision_point": "picnic", "proposition": None}
    return {**row, "action": "meet", "target": "meadow" if in_line else "ford"}


def told(agent: str, proposition: str, tick: int = 10) -> dict[str, Any]:
    return exposure(agent, "told", "ana", tick=tick, proposition=proposition, value="true")


def episode(
    when: str, bridge: str, ford: str, actions: list[dict], exposures: list[dict]
) -> dict[str, Any]:
    truth = [
        fact("bridge_out", bridge, "ana", ["bo", "cy", "di", "ed"]),
        fact("ford_out", ford, "ana", ["bo", "cy", "di", "ed"]),
    ]
    return {
        "actions": frame("actions", actions),
        "exposures": frame("exposures", exposures),
        "decision_points": frame("decision_points", [point(when)]),
        "truth": frame("truth", truth),
    }


def test_all_of_that_holds_is_known_only_by_hearing_every_part() -> None:
    e = episode(
        "all_of",
        "true",
        "true",
        [act("bo", True), act("cy", True), act("di", True)],
        [
            told("bo", "bridge_out"),
            told("bo", "ford_out", tick=40),  # both before acting: knew
            told("cy", "bridge_out"),  # one only: the meadow was a lucky turn
            told("di", "bridge_out"),
            told("di", "ford_out", tick=60),  # the second after acting: not informed
            told("ed", "bridge_out"),
            told("ed", "ford_out"),  # settled and never acted: a miss
        ],
    )
    # bo right; cy and di acted uninformed away from no plan: luck; ed missed
    assert action_consistency(e) == pytest.approx(1 / 4)


def test_all_of_that_fails_is_settled_by_the_part_that_fails() -> None:
    # the ford is open: hearing that alone settles it (and hearing of the bridge does not)
    actions = [{**act("bo", False), "in_line": True}, {**act("cy", False), "in_line": True}]
    exposures = [told("bo", "ford_out"), told("cy", "bridge_out")]
    e = episode("all_of", "true", "false", actions, exposures)
    assert action_consistency(e) == pytest.approx(1 / 2)


def test_any_of_is_settled_by_one_part_that_holds_and_only_by_all_when_none_does() -> None:
    exposures = [told("bo", "bridge_out"), told("cy", "ford_out")]
    actions = [act("bo", True), act("cy", True)]
    # the bridge is out, the ford is not: bo, told of the bridge, knew; cy heard only the ford
    assert action_consistency(
        episode("any_of", "true", "false", actions, exposures)
    ) == pytest.approx(1 / 2)
    # neither is out: only hearing both settles it
    both = [*exposures, told("bo", "ford_out", tick=20)]
    assert action_consistency(episode("any_of", "false", "false", actions, both)) == pytest.approx(
        1 / 2
    )


def test_stale_and_replan_times_run_from_the_tick_the_condition_was_settled() -> None:
    exposures = [told("bo", "bridge_out", tick=0), told("bo", "ford_out", tick=40)]
    acts = [{**act("bo", False, tick=45), "horizon": 10}, act("bo", True, tick=70)]
    e = episode("all_of", "true", "true", acts, exposures)
    # settled at 40, the last part heard: the wrong action at 45 is within one horizon
    assert stale_action_rate(e) is None
    assert time_to_replan(e) == pytest.approx(30.0)  # 70 - 40, not 70 - 0


def test_a_point_scoped_to_its_deciders_counts_no_bystander_who_knew() -> None:
    # ed heard both and took no meet: a miss at a point everyone decides, nobody's business
    # at one only bo and cy decide (one who handed the task over is not a miss for not doing it)
    actions = [act("bo", True), act("cy", False)]
    exposures = [told(a, p) for a in ("bo", "cy", "ed") for p in ("bridge_out", "ford_out")]
    everyone = episode("all_of", "true", "true", actions, exposures)
    assert action_consistency(everyone) == pytest.approx(1 / 3)
    scoped = {
        **everyone,
        "decision_points": frame("decision_points", [{**point("all_of"), "agents": ["bo", "cy"]}]),
    }
    assert action_consistency(scoped) == pytest.approx(1 / 2)
