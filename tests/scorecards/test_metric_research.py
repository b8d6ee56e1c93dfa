"""The research family's metrics on hand-made traces: `retraction_reach` (a retraction reaches
whoever passed the claim on) and `conflicts_kept` (a contested matter heard both ways is held
as contested)."""

from __future__ import annotations

from typing import Any

import pytest
from scorecard_traces import answer, claim, exposure, fact, frame

from scorecards.metrics.conflicts_kept import conflicts_kept
from scorecards.metrics.retraction_reach import retraction_reach

# --- retraction_reach ----------------------------------------------------------------------
CLAIMED = fact("bark_cures", "true", audience=["ana"])  # the paper's claim: its author's only
RETRACTED = fact("bark_retracted", "true", supersedes="bark_cures")


def _retraction(said: list[dict], exposures: list[dict], answers: list[dict]) -> dict:
    return {
        "truth": frame("truth", [CLAIMED, RETRACTED]),
        "utterances": frame("utterances", said),
        "exposures": frame("exposures", exposures),
        "probes": frame("probes", answers),
    }


def _knows_retraction(agent: str) -> tuple[dict[str, Any], dict[str, Any]]:
    heard = exposure(agent, "told", "ana", tick=60, proposition="bark_retracted", value="true")
    return heard, answer(agent, "true", "ana", proposition="bark_retracted")


def test_a_retraction_must_reach_everyone_who_cited_the_claim() -> None:
    said, exposed = [], []
    for i, (speaker, listener) in enumerate([("ana", "bo"), ("bo", "cy"), ("cy", "di")]):
        s, e = claim(speaker, listener, "ana", event_id=i, proposition="bark_cures", value="true")
        said.append(s)
        exposed.append(e)
    bo_heard, bo_knows = _knows_retraction("bo")
    di_heard, di_knows = _knows_retraction("di")  # di never cited the claim: not counted
    answers = [bo_knows, di_knows, answer("cy", None, proposition="bark_retracted")]
    episode = _retraction(said, [*exposed, bo_heard, di_heard], answers)
    # citers bo and cy (ana, who retracted, is excluded): bo knows the retraction, cy does not
    assert retraction_reach(episode) == pytest.approx(1 / 2)


def test_a_retraction_answered_without_hearing_of_it_is_a_guess() -> None:
    s, e = claim("bo", "cy", "ana", event_id=0, proposition="bark_cures", value="true")
    guessed = answer("bo", "true", "ana", proposition="bark_retracted")  # nothing reached bo
    assert retraction_reach(_retraction([s], [e], [guessed])) == 0.0


def test_scripted_lines_cite_nothing_and_nothing_cited_is_absent() -> None:
    s, e = claim("bo", "cy", "ana", event_id=0, proposition="bark_cures", value="true")
    scripted = {**s, "scripted": True}
    assert retraction_reach(_retraction([scripted], [e], [])) is None
    plain = {"truth": frame("truth", [CLAIMED]), "utterances": frame("utterances", [s])}
    assert retraction_reach(plain) is None


# --- conflicts_kept ------------------------------------------------------------------------
CONTESTED = fact("tea_works", "true", origin=None, modality="likely")


def _both_ways(agent: str, tick: int = 10) -> list[dict[str, Any]]:
    """Told each side, as surely, by two tellers: nothing it perceived settles which holds."""
    return [
        exposure(agent, "told", "gus", tick=tick, proposition="tea_works", value="true"),
        exposure(agent, "told", "hal", tick=tick, proposition="tea_works", value="false"),
    ]


def _said(agent: str, value: str | None, modality: str | None) -> dict[str, Any]:
    return {**answer(agent, value, "self", proposition="tea_works"), "answer_modality": modality}


def _conflict(truth: dict, exposures: list[dict], answers: list[dict]) -> dict:
    return {
        "truth": frame("truth", [truth]),
        "exposures": frame("exposures", exposures),
        "probes": frame("probes", answers),
    }


def test_who_heard_both_sides_must_hold_either_hedged() -> None:
    exposures = [*_both_ways("ana"), *_both_ways("bo"), *_both_ways("cy"), *_both_ways("di")]
    exposures.append(exposure("ed", "read", proposition="tea_works", value="true"))
    answers = [
        _said("ana", "true", "likely"),  # kept open
        _said("bo", "false", "rumor"),  # kept open, on the other side
        _said("cy", "false", "certain"),  # resolved by fiat
        _said("di", None, None),  # silence keeps nothing
        _said("ed", "true", "certain"),  # heard one side only: not counted
    ]
    assert conflicts_kept(_conflict(CONTESTED, exposures, answers)) == pytest.approx(2 / 4)


def test_a_side_seen_for_oneself_settles_it_and_hearsay_against_hearsay_does_not() -> None:
    exposures = [
        *_both_ways("ana"),
        exposure("ana", "read", tick=20, proposition="tea_works", value="true"),  # saw it
        {
            **exposure("bo", "told", "gus", proposition="tea_works", value="false"),
            "modality": "rumor",
        },
        exposure("bo", "told", "hal", proposition="tea_works", value="true"),  # told certain
        *_both_ways("cy"),
    ]
    answers = [_said("ana", "true", "certain"), _said("bo", "true", "certain")]
    answers.append(_said("cy", "true", "likely"))
    # ana read it herself: not contested; bo heard it both ways, however surely each, and
    # resolved it by fiat; cy kept it open
    assert conflicts_kept(_conflict(CONTESTED, exposures, answers)) == pytest.approx(1 / 2)


def test_a_side_heard_after_the_answer_makes_no_conflict_yet() -> None:
    exposures = [
        exposure("ana", "read", tick=10, proposition="tea_works", value="true"),
        exposure("ana", "told", "bo", tick=200, proposition="tea_works", value="false"),
    ]
    answers = [_said("ana", "true", "certain")]  # at tick 100
    assert conflicts_kept(_conflict(CONTESTED, exposures, answers)) is None


def test_a_settled_matter_is_no_conflict() -> None:
    settled = {**CONTESTED, "modality": "certain"}  # the sign settles it: certainty is earned
    answers = [_said("ana", "true", "certain")]
    assert conflicts_kept(_conflict(settled, _both_ways("ana"), answers)) is None
