"""`understatement_rate`: a certain fact passed on or answered as a hedge costs."""

from __future__ import annotations

import pandas as pd
import pytest
from scorecard_traces import answer, exposure, fact, frame, heard

from scorecards.metrics import METRICS
from scorecards.metrics.understatement_rate import understatement_rate


def _said(speaker: str, value: str, modality: str | None, **extra: object) -> dict:
    return {
        "speaker": speaker,
        "listener": "zed",
        "proposition": "bakery_closed",
        "value": value,
        "modality": modality,
        "scripted": False,
        **extra,
    }


def _answer(agent: str, modality: str | None) -> dict:
    return {**answer(agent, "yes", "ana"), "answer_modality": modality}


def test_hedged_statements_of_a_certain_truth_are_understatements() -> None:
    episode = {
        "truth": frame("truth", [fact(), fact("bo_leaves", modality="rumor")]),
        "utterances": frame(
            "utterances",
            [
                _said("bo", "yes", "rumor"),  # a certain fact as a rumor: understated
                _said("bo", "yes", "likely"),  # hearsay one step down: as its evidence allows
                _said("cy", "yes", "likely", tick=20),  # cy had seen it itself: understated
                _said("cy", "yes", "certain"),  # as it is
                _said("di", "yes", None),  # states no modality: not a hedge
                _said("ed", "no", "rumor"),  # a false value: false certainty's business
                _said("bo", "yes", "rumor", proposition="bo_leaves"),  # the truth is a rumor
                _said("fay", "yes", "rumor", scripted=True),  # the scenario's line
            ],
        ),
        "probes": frame("probes", [_answer("bo", "rumor"), _answer("cy", "certain")]),
        "exposures": pd.concat([heard("bo"), frame("exposures", [exposure("cy", "seen")])]),
    }
    # said: 2 of 5 (bo's rumor, cy's likely); answered: 1 of 2 (bo's rumor) → 3 of 7
    assert understatement_rate(episode) == pytest.approx(3 / 7)


def test_seeing_it_oneself_allows_no_hedge_after_but_not_before() -> None:
    said = [_said("cy", "yes", "likely", tick=5), _said("cy", "yes", "likely", tick=50)]
    episode = {
        "truth": frame("truth", [fact()]),
        "utterances": frame("utterances", said),
        "exposures": frame(
            "exposures", [exposure("cy", "told", "ana", tick=1), exposure("cy", "seen", tick=20)]
        ),
    }
    assert understatement_rate(episode) == pytest.approx(1 / 2)


def test_an_always_hedging_agent_scores_one() -> None:
    episode = {
        "truth": frame("truth", [fact()]),
        "utterances": frame("utterances", [_said(a, "yes", "rumor") for a in ("bo", "cy")]),
        "probes": frame("probes", [_answer("bo", "rumor")]),
        "exposures": heard("bo"),
    }
    assert understatement_rate(episode) == 1.0


def test_nothing_said_is_no_accuracy_and_absent() -> None:
    assert understatement_rate({"truth": frame("truth", [fact()])}) is None
    rumor_only = {"truth": frame("truth", [fact("bo_leaves", modality="rumor")])}
    assert understatement_rate(rumor_only) is None
    assert understatement_rate({}) is None


def test_registered_as_a_min_share() -> None:
    m = METRICS["understatement_rate"]
    assert (m.direction, m.range, m.internal) == ("min", (0.0, 1.0), False)
