"""A truth with successive values (a price of 3, then 4, then 5): answers are judged by the
value holding at their tick; knowing an old price is no reach; moving on is supersession; a
probe may ask which value the current one replaced."""

from __future__ import annotations

import pytest
from scorecard_traces import answer, exposure, fact, frame

from scorecards.metrics import METRICS

# the price is 3 from the start, 4 from tick 100, 5 from tick 200 (ana knows it first-hand)
PRICE = [
    fact("price", "3", valid_from=None, valid_to=100),
    fact("price", "4", valid_from=100, valid_to=200),
    fact("price", "5", valid_from=200, valid_to=None),
]


def told(agent: str, value: str, tick: int) -> dict:
    return exposure(agent, "told", "ana", tick=tick, proposition="price", value=value)


def asked(agent: str, value: str | None, kind: str = "census", tick: int = 250) -> dict:
    return {**answer(agent, value, "ana", tick=tick, proposition="price", kind=kind)}


def episode(answers: list[dict], exposures: list[dict]) -> dict:
    return {
        "truth": frame("truth", PRICE),
        "probes": frame("probes", answers),
        "exposures": frame("exposures", exposures),
        "utterances": frame("utterances", []),
    }


def score(name: str, answers: list[dict], exposures: list[dict]) -> float | None:
    return METRICS[name].fn(episode(answers, exposures))


def test_reach_counts_knowers_of_the_current_value_only():
    exposures = [
        told("bo", "3", 50),
        told("bo", "5", 210),
        told("cy", "4", 150),
        told("di", "3", 50),
    ]
    answers = [
        asked("bo", "5"),  # knows the price now
        asked("cy", "4"),  # knows an old price: not reach
        asked("di", "5"),  # the right price, but it never reached di: a guess
    ]
    assert score("reach", answers, exposures) == pytest.approx(1 / 4)


def test_a_census_before_the_change_is_judged_by_the_value_then():
    answers = [asked("bo", "3", tick=90), asked("cy", "3", tick=90)]
    exposures = [told("bo", "3", 50), told("cy", "3", 50)]
    assert score("reach", answers, exposures) == pytest.approx(2 / 4)


def test_supersession_scores_moving_from_an_older_value_to_the_current_one():
    exposures = [
        told("bo", "3", 50),
        told("bo", "5", 210),
        told("cy", "3", 50),
        told("cy", "5", 210),
        told("di", "5", 210),  # knew no older value: nothing to move from
        told("ed", "3", 50),  # never heard of the change: not counted
    ]
    answers = [asked("bo", "5"), asked("cy", "3"), asked("di", "3"), asked("ed", "3")]
    assert score("supersession", answers, exposures) == pytest.approx(1 / 2)


def test_a_probe_asking_what_was_replaced_wants_the_value_before_the_current_one():
    everything = [told(a, v, t) for a in ("bo", "cy", "di") for v, t in (("3", 50), ("4", 150))]
    everything += [told("bo", "5", 210), told("cy", "5", 210)]
    answers = [
        asked("bo", "4", kind="probe_replaced"),  # 5 replaced 4
        asked("cy", "3", kind="probe_replaced"),  # the oldest it heard: not what 5 replaced
        asked("di", "4", kind="probe_replaced"),  # 5 never reached di: it cannot know
    ]
    assert score("probe_recall", answers, everything) == pytest.approx(1 / 3)


def test_a_silent_or_unmoving_agent_does_not_win():
    exposures = [told(a, v, t) for a in ("bo", "cy") for v, t in (("3", 50), ("5", 210))]
    silent = [asked(a, None, kind=k) for a in ("bo", "cy") for k in ("probe", "probe_replaced")]
    oldest = [asked(a, "3", kind=k) for a in ("bo", "cy") for k in ("probe", "probe_replaced")]
    for answers in (silent, oldest):
        assert score("probe_recall", answers, exposures) == 0.0
        assert (
            score("reach", [asked(a["agent"], a["answer_value"]) for a in answers], exposures)
            == 0.0
        )
    moving = [asked(a, "5", kind="probe") for a in ("bo", "cy")]
    moving += [asked(a, "4", kind="probe_replaced") for a in ("bo", "cy")]
    told_4 = [told(a, "4", 150) for a in ("bo", "cy")]
    assert score("probe_recall", moving, exposures + told_4) == 1.0


def test_an_old_value_said_for_certain_is_out_of_date_not_false():
    said = [
        {
            "speaker": "bo",
            "listener": "cy",
            "proposition": "price",
            "value": v,
            "modality": "certain",
            "scripted": False,
            "tick": 250,
        }
        for v in ("3", "6")
    ]
    ep = episode([], [told("bo", "3", 50)])
    ep["utterances"] = frame("utterances", said)
    assert METRICS["false_certainty_rate"].fn(ep) == pytest.approx(1 / 2)  # 6 never held


def test_a_truth_table_holding_a_proposition_twice_at_once_is_refused():
    ep = episode([asked("bo", "3")], [told("bo", "3", 50)])
    ep["truth"] = frame("truth", [fact("price", "3"), fact("price", "4")])
    with pytest.raises(ValueError, match="twice without successive first ticks"):
        METRICS["reach"].fn(ep)


def test_a_replaced_value_named_without_hearing_it_is_a_hallucination():
    exposures = [told("bo", "3", 50), told("bo", "5", 210)]
    answers = [asked("bo", "4", kind="probe_replaced"), asked("bo", "3", kind="probe_replaced")]
    assert score("probe_hallucination", answers, exposures) == pytest.approx(1 / 2)
