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


def test_hedging_below_the_evidence_is_understatement() -> None:
    said = [
        _said("bo", "yes", "rumor"),  # told it certain, passes it on as a rumor: understated
        _said("cy", "yes", "likely"),  # told it certain: a hedge of hearsay is fair
        _said("di", "yes", "likely"),  # saw it itself (tick 10): understated
        _said("ed", "yes", "likely", tick=5),  # before anything reached it: not its claim yet
        _said("fay", "yes", "rumor"),  # told it as a rumor: as told, nothing to understate
        _said("gus", "no", "rumor"),  # a false value: false certainty's business
        _said("hal", "yes", "rumor", scripted=True),  # the scenario's line
    ]
    episode = {
        "truth": frame("truth", [fact()]),
        "utterances": frame("utterances", [{"tick": 20, **s} for s in said]),
        "exposures": pd.concat(
            [
                heard("bo", "cy", "ed", "gus"),
                heard("fay", modality="rumor"),
                frame("exposures", [exposure("di", "seen")]),
            ]
        ),
    }
    # bo, cy and di made claims that could be understated; bo's and di's were
    assert understatement_rate(episode) == pytest.approx(2 / 3)


def test_a_census_answer_is_a_statement_of_the_same_claim() -> None:
    episode = {
        "truth": frame("truth", [fact()]),
        "utterances": frame("utterances", [_said("bo", "yes", "likely", tick=20)]),
        "probes": frame("probes", [_answer("bo", "rumor"), _answer("cy", "certain")]),
        "exposures": heard("bo", "cy"),
    }
    # bo's talk was fair, its census answer a rumor: one claim, understated; cy's is fine
    assert understatement_rate(episode) == pytest.approx(1 / 2)


def test_seeing_it_oneself_allows_no_hedge_after_but_not_before() -> None:
    exposures = frame(
        "exposures",
        [
            exposure("cy", "told", "ana", tick=1),
            exposure("cy", "seen", tick=20),
            exposure("bo", "told", "ana", tick=1),
        ],
    )

    def rate(tick: int) -> float | None:
        said = [_said("cy", "yes", "likely", tick=tick), _said("bo", "yes", "likely", tick=tick)]
        episode = {
            "truth": frame("truth", [fact()]),
            "utterances": frame("utterances", said),
            "exposures": exposures,
        }
        return understatement_rate(episode)

    assert rate(5) == 0.0  # told it: likely is fair (bo's hearsay, likely, is fair throughout)
    assert rate(50) == pytest.approx(1 / 2)  # cy has seen it since: understated


def test_an_always_hedging_agent_approaches_the_worst_value() -> None:
    episode = {
        "truth": frame("truth", [fact()]),
        "utterances": frame(
            "utterances", [_said(a, "yes", "rumor", tick=20) for a in ("bo", "cy", "di")]
        ),
        "probes": frame("probes", [_answer("bo", "rumor")]),
        "exposures": heard("bo", "cy", "di"),
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
