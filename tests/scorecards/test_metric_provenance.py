"""`provenance`: knowers naming the origin, a real informant, or self after first-hand."""

from __future__ import annotations

import pytest
from scorecard_traces import answer, exposure, fact, frame

from scorecards.metrics import METRICS
from scorecards.metrics.provenance import provenance


def _episode(answers: list[dict], exposures: list[dict]) -> dict:
    return {
        "truth": frame("truth", [fact()]),
        "probes": frame("probes", answers),
        "exposures": frame("exposures", exposures),
    }


def test_origin_is_an_acceptable_source() -> None:
    assert provenance(_episode([answer("bo", "yes", "ana")], [])) == 1.0


def test_informant_told_per_exposures_is_accepted() -> None:
    told = [exposure("cy", "told", "bo", tick=40)]
    assert provenance(_episode([answer("cy", "yes", "bo")], told)) == 1.0


def test_naming_someone_who_never_told_is_not_provenance() -> None:
    told = [exposure("cy", "told", "bo", tick=40)]
    assert provenance(_episode([answer("cy", "yes", "di")], told)) == 0.0
    # bo told someone else, or told cy about another proposition: still not cy's source
    others = [exposure("di", "told", "bo"), exposure("cy", "told", "bo", proposition="rain")]
    assert provenance(_episode([answer("cy", "yes", "bo")], others)) == 0.0


def test_telling_after_the_census_does_not_count() -> None:
    late = [exposure("cy", "told", "bo", tick=101)]
    assert provenance(_episode([answer("cy", "yes", "bo", tick=100)], late)) == 0.0
    same_tick = [exposure("cy", "told", "bo", tick=100)]
    assert provenance(_episode([answer("cy", "yes", "bo", tick=100)], same_tick)) == 1.0


def test_self_needs_a_first_hand_exposure() -> None:
    seen = [exposure("bo", "seen")]
    assert provenance(_episode([answer("bo", "yes", "self")], seen)) == 1.0
    read = [exposure("bo", "read")]
    assert provenance(_episode([answer("bo", "yes", "self")], read)) == 1.0
    only_told = [exposure("bo", "told", "ana")]
    assert provenance(_episode([answer("bo", "yes", "self")], only_told)) == 0.0


def test_provenance_is_a_share_of_knowers_only() -> None:
    answers = [
        answer("bo", "yes", "ana"),  # origin: ok
        answer("cy", "yes", "bo"),  # told by bo: ok
        answer("di", "yes", None),  # knows, names nobody: not ok
        answer("ed", "yes", "cy"),  # cy never told ed: not ok
        answer("ana", "yes", "self"),  # origin: not a knower
        answer("zed", "no", "ana"),  # wrong value: not a knower
    ]
    exposures = [exposure("cy", "told", "bo"), exposure("ed", "told", "bo")]
    assert provenance(_episode(answers, exposures)) == pytest.approx(2 / 4)


def test_no_knowers_gives_zero_and_no_truth_gives_none() -> None:
    assert provenance(_episode([answer("bo", None, "ana")], [])) == 0.0
    assert provenance({"truth": frame("truth", [fact()])}) == 0.0
    assert (
        provenance(
            {"truth": frame("truth", []), "probes": frame("probes", [answer("bo", "yes", "ana")])}
        )
        is None
    )


def test_provenance_definition_documents_the_zero_without_knowers() -> None:
    m = METRICS["provenance"]
    assert (m.direction, m.range) == ("max", (0.0, 1.0))
    assert "0 with no knowers" in m.definition
