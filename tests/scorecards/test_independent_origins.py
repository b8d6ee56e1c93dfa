"""A proposition with several origins (`truth.origins`): whoever two independent origins reached
may hold it certain; the same report twice through one teller is one source."""

from __future__ import annotations

from typing import Any

import pytest
from scorecard_traces import answer, exposure, fact, frame

from scorecards.metrics.false_certainty_rate import false_certainty_rate
from scorecards.metrics.provenance_origin import provenance_origin
from scorecards.metrics.uncertainty_preservation import uncertainty_preservation
from scorecards.metrics.understatement_rate import understatement_rate

AUDIENCE = ["ana", "bo", "cy", "di", "ed", "fay"]


def storm() -> dict[str, Any]:
    return fact(
        "storm",
        "yes",
        None,  # several origins: no single one
        AUDIENCE,
        modality="likely",
        private=False,
        origins=["ana", "bo"],
        origin_modalities=["likely", "likely"],
        origin_ticks=[1, 1],
    )


def told(agent: str, teller: str, tick: int) -> dict[str, Any]:
    return {**exposure(agent, "told", teller, tick=tick, proposition="storm"), "modality": "likely"}


# ana and bo witness it; cy hears both directly (two sources); di hears ana twice, once
# through cy (cy is a shared teller with nothing else: one source); ed hears ana via cy and
# bo via fay (fay heard bo): two chains with no teller in common
EXPOSURES = [
    exposure("ana", "seen", tick=1, proposition="storm"),
    exposure("bo", "seen", tick=1, proposition="storm"),
    told("cy", "ana", 5),
    told("cy", "bo", 6),
    told("di", "cy", 7),
    told("di", "cy", 8),
    told("fay", "bo", 5),
    told("ed", "cy", 9),  # cy's word: ana's or bo's, cy heard both
    told("ed", "fay", 10),
]


def census(*rows: tuple[str, str]) -> Any:
    return frame(
        "probes",
        [
            {**answer(a, "yes", "x", tick=20, proposition="storm"), "answer_modality": m}
            for a, m in rows
        ],
    )


def episode(*rows: tuple[str, str], said: list[dict] | None = None) -> dict[str, Any]:
    return {
        "truth": frame("truth", [storm()]),
        "exposures": frame("exposures", EXPOSURES),
        "probes": census(*rows),
        "utterances": frame("utterances", said or []),
    }


def test_two_independent_sources_release_an_agent_from_hedging_one_twice_does_not() -> None:
    # cy and ed were reached independently: certain is fair for them; di and fay were not
    everyone_certain = [(a, "certain") for a in ("cy", "di", "ed", "fay")]
    assert uncertainty_preservation(episode(*everyone_certain)) == 0.5  # di, fay hardened
    hedged_where_due = [("cy", "certain"), ("ed", "certain"), ("di", "likely"), ("fay", "likely")]
    assert uncertainty_preservation(episode(*hedged_where_due)) == 1.0
    # cy and ed, silent, count as the silent do
    assert uncertainty_preservation(episode(("di", "likely"))) == pytest.approx(1 / 4)


def test_certainty_is_false_only_for_whoever_had_one_source() -> None:
    said = [
        {
            "speaker": s,
            "listener": "x",
            "proposition": "storm",
            "value": "yes",
            "modality": "certain",
            "scripted": False,
            "tick": 15,
        }
        for s in ("cy", "di", "ed")
    ]
    assert false_certainty_rate(episode(said=said)) == pytest.approx(1 / 3)  # di only


def test_rumor_understates_what_two_sources_told() -> None:
    rows = [("cy", "rumor"), ("ed", "likely"), ("di", "rumor")]  # di had one source: not judged
    assert understatement_rate(episode(*rows)) == pytest.approx(1 / 2)


def test_any_origin_whose_name_reached_the_agent_is_a_right_origin() -> None:
    e = episode(("cy", "likely"), ("fay", "likely"))
    e["probes"] = frame(
        "probes",
        [
            {**answer("cy", "yes", "ana", tick=20, proposition="storm"), "answer_origin": "bo"},
            {**answer("fay", "yes", "bo", tick=20, proposition="storm"), "answer_origin": "ana"},
        ],
    )
    # cy names bo, who told it; fay names ana, whose name never reached it
    assert provenance_origin(e) == pytest.approx(1 / 4)


def test_with_a_sure_and_an_unsure_witness_each_agent_is_judged_by_whose_word_reached_it() -> None:
    mixed = {**storm(), "modality": "certain", "origin_modalities": ["certain", "rumor"]}
    # cy: ana's certain word; fay: bo's rumor
    exposures = [
        {**told("cy", "ana", 5), "modality": "certain"},
        {**told("di", "ana", 5), "modality": "certain"},
        {**told("fay", "bo", 5), "modality": "rumor"},
    ]
    base = {"truth": frame("truth", [mixed]), "exposures": frame("exposures", exposures)}
    # fay keeps bo's rumor as a rumor: fair; cy weakens ana's certain word to a rumor: not
    answers = census(("cy", "rumor"), ("di", "likely"), ("fay", "rumor"))
    # cy's and di's answers could be understated (fay's rumor has no floor above rumor);
    # cy's was
    assert understatement_rate({**base, "probes": answers}) == pytest.approx(1 / 2)
    # of cy, di, ed and fay, di and fay know it inside their bands
    assert uncertainty_preservation({**base, "probes": answers}) == pytest.approx(2 / 4)
    said = [
        {
            "speaker": s,
            "listener": "x",
            "proposition": "storm",
            "value": "yes",
            "modality": "certain",
            "scripted": False,
            "tick": 15,
        }
        for s in ("cy", "fay")
    ]
    episode_said = {**base, "probes": census(), "utterances": frame("utterances", said)}
    # fay hardened a rumor; cy may be certain of ana's certain word
    assert false_certainty_rate(episode_said) == pytest.approx(1 / 2)
