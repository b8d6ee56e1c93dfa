"""`milestones` and `help_loops`: the two-day room ecology's pass criteria."""

from __future__ import annotations

from typing import Any

from scorecard_traces import frame

from scorecards.metrics.help_loops import help_loops
from scorecards.metrics.milestones import milestones


def _stage(detail: str, tick: int = 10) -> dict[str, Any]:
    return {"kind": "milestone", "agent": "ana", "detail": detail, "tick": tick}


def test_distinct_stages_past_preparation() -> None:
    events = [
        _stage("preparation"),
        _stage("sketch"),
        _stage("sketch", 20),
        _stage("body"),
        {"kind": "plan", "detail": "finish"},
    ]
    assert milestones({"events": frame("events", events)}) == 2.0
    all_stages = [_stage(s) for s in ("preparation", "sketch", "body", "finish", "display")]
    assert milestones({"events": frame("events", all_stages)}) == 4.0


def test_a_painting_project_with_no_progress_scores_zero_otherwise_absent() -> None:
    prepared = {"events": frame("events", [_stage("preparation")])}
    assert milestones(prepared) == 0.0
    painted = {"actions": frame("actions", [{"agent": "ana", "action": "paint"}])}
    assert milestones(painted) == 0.0
    assert milestones({"events": frame("events", [{"kind": "plan"}])}) is None
    assert milestones({}) is None


def _call(agent: str, target: str | None, tick: int) -> dict[str, Any]:
    return {"agent": agent, "action": "ask_for_help", "target": target, "tick": tick}


def _seen(agent: str, subject: str, tick: int) -> dict[str, Any]:
    return {"agent": agent, "kind": "sight", "subject": subject, "tick": tick}


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


def test_no_calls_is_zero_loops() -> None:
    assert help_loops({}) == 0.0
    assert help_loops({"actions": frame("actions", [_call("ana", "lamp", 5)])}) == 0.0
