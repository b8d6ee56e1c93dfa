"""`milestones` and `help_loops`: the two-day room ecology's pass criteria."""

from __future__ import annotations

from typing import Any

from scorecard_traces import frame

from scorecards.metrics.help_loops import help_loops
from scorecards.metrics.milestones import milestones


def _stage(detail: str, tick: int = 10) -> dict[str, Any]:
    return {"kind": "milestone", "agent": "ana", "detail": detail, "tick": tick}


def test_every_stage_past_each_works_first_counts() -> None:
    events = [
        _stage("preparation"),
        _stage("sketch", 11),
        _stage("body", 12),
        {"kind": "plan", "detail": "finish"},
    ]
    assert milestones({"events": frame("events", events)}) == 2.0
    stages = ("preparation", "sketch", "body", "finish", "display")
    two_works = [_stage(s, 10 + i) for i, s in enumerate(stages * 2)]
    assert milestones({"events": frame("events", two_works)}) == 8.0  # both paintings count


def test_an_idle_agent_scores_zero_never_absent() -> None:
    assert milestones({"events": frame("events", [_stage("preparation")])}) == 0.0
    assert milestones({"events": frame("events", [{"kind": "plan"}])}) == 0.0
    assert milestones({}) == 0.0


def _call(agent: str, target: str | None, tick: int, eid: int | None = None) -> dict[str, Any]:
    row = {"agent": agent, "action": "ask_for_help", "target": target, "tick": tick}
    return row if eid is None else {**row, "event_id": eid}


def _seen(agent: str, subject: str, tick: int) -> dict[str, Any]:
    # event ids apart from the calls': a sighting is not the answer to a call
    return {"agent": agent, "kind": "sight", "subject": subject, "tick": tick, "event_id": 1000}


def test_a_repeated_call_with_no_new_evidence_is_a_loop() -> None:
    actions = [
        _call("ana", "lamp", 10),
        _call("ana", "lamp", 20),  # nothing seen of the lamp in between: loop
        _call("ana", "lamp", 30),  # the lamp seen at 25: new evidence, not a loop
        _call("ana", "sink", 40),  # another target: not a loop
        _call("ana", "lamp", 50),  # previous call was the sink: not a loop
        _call("bo", "lamp", 15),  # bo's first call
        _call("bo", "lamp", 35),  # ana's sighting is not bo's evidence: loop
        _call("cy", None, 10),
        _call("cy", None, 11),  # null repeats null: loop
        {"agent": "ana", "action": "paint", "target": "lamp", "tick": 12},
    ]
    observations = [
        _seen("ana", "lamp", 25),
        _seen("ana", "lamp", 20),  # at the call's own tick: not strictly between
        _seen("ana", "desk", 15),  # another subject
    ]
    episode = {
        "actions": frame("actions", actions),
        "observations": frame("observations", observations),
    }
    assert help_loops(episode) == 3.0


def test_the_answer_to_a_call_is_not_new_evidence() -> None:
    actions = [_call("ana", "desk", 10, eid=100), _call("ana", "desk", 20, eid=200)]
    answers = [
        {"agent": "ana", "kind": "action_result", "subject": "desk", "tick": 12, "event_id": 100},
    ]
    episode = {
        "actions": frame("actions", actions),
        "observations": frame("observations", answers),
    }
    assert help_loops(episode) == 1.0
    looked = [*answers, _seen("ana", "desk", 15)]
    episode["observations"] = frame("observations", looked)
    assert help_loops(episode) == 0.0


def test_no_calls_is_zero_loops() -> None:
    assert help_loops({}) == 0.0
    assert help_loops({"actions": frame("actions", [_call("ana", "lamp", 5)])}) == 0.0
