"""`provenance` (the informant) and `provenance_origin` (where it started): two questions a
knower's census answer must answer separately."""

from __future__ import annotations

import pytest
from scorecard_traces import answer, exposure, fact, frame

from scorecards.metrics import METRICS
from scorecards.metrics.provenance import provenance
from scorecards.metrics.provenance_origin import provenance_origin


def _episode(answers: list[dict], exposures: list[dict], **truth: object) -> dict:
    return {
        "truth": frame("truth", [fact(**truth)]),
        "probes": frame("probes", answers),
        "exposures": frame("exposures", exposures),
    }


def _origin(agent: str, origin: str | None, source: str | None = None, tick: int = 100) -> dict:
    return {**answer(agent, "yes", source, tick=tick), "answer_origin": origin}


def test_informant_told_per_exposures_is_accepted() -> None:
    told = [exposure("cy", "told", "bo", tick=40)]
    assert provenance(_episode([answer("cy", "yes", "bo")], told)) == 1.0


def test_naming_the_origin_who_never_told_is_not_naming_the_informant() -> None:
    told = [exposure("cy", "told", "bo", tick=40)]
    assert provenance(_episode([answer("cy", "yes", "ana")], told)) == 0.0
    from_ana = [exposure("bo", "told", "ana")]  # the origin told bo herself: her name is fair
    assert provenance(_episode([answer("bo", "yes", "ana")], from_ana)) == 1.0


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
        answer("bo", "yes", "ana"),  # told by the origin: ok
        answer("cy", "yes", "bo"),  # told by bo: ok
        answer("di", "yes", None),  # knows, names nobody: not ok
        answer("ed", "yes", "cy"),  # cy never told ed: not ok
        answer("ana", "yes", "self"),  # origin: not a knower
        answer("zed", "no", "ana"),  # wrong value: not a knower
    ]
    exposures = [
        exposure("bo", "told", "ana"),
        exposure("cy", "told", "bo"),
        exposure("ed", "told", "bo"),
    ]
    assert provenance(_episode(answers, exposures)) == pytest.approx(2 / 4)


def test_the_origin_is_the_true_origin_or_self_after_seeing_it() -> None:
    hops = [exposure("cy", "told", "bo"), exposure("di", "seen"), exposure("ed", "told", "bo")]
    answers = [
        _origin("cy", "ana", "bo"),  # told by bo what ana started: origin kept
        _origin("di", "self", "self"),  # saw it for itself
        _origin("ed", "bo", "bo"),  # took the informant for the origin: lost
        _origin("bo", None, "ana"),  # no origin named
    ]
    assert provenance_origin(_episode(answers, hops)) == pytest.approx(2 / 4)
    told_self = [_origin("ed", "self", "bo")]  # self without a first-hand exposure
    assert provenance_origin(_episode(told_self, hops)) == 0.0


def test_the_two_provenance_metrics_answer_different_questions() -> None:
    hops = [exposure("cy", "told", "bo")]
    informant_only = [_origin("cy", "bo", "bo")]
    origin_only = [_origin("cy", "ana", None)]
    assert (
        provenance(_episode(informant_only, hops)),
        provenance_origin(_episode(informant_only, hops)),
    ) == (1.0, 0.0)
    assert (
        provenance(_episode(origin_only, hops)),
        provenance_origin(_episode(origin_only, hops)),
    ) == (0.0, 1.0)


def test_an_unsigned_proposition_has_no_origin_to_name() -> None:
    unsigned = _episode([_origin("bo", None, "self")], [exposure("bo", "read")], origin=None)
    assert provenance_origin(unsigned) is None


def test_no_knowers_gives_zero_and_no_truth_gives_none() -> None:
    assert provenance(_episode([answer("bo", None, "ana")], [])) == 0.0
    assert provenance_origin(_episode([answer("bo", None, "ana")], [])) == 0.0
    assert provenance({"truth": frame("truth", [fact()])}) == 0.0
    assert (
        provenance(
            {"truth": frame("truth", []), "probes": frame("probes", [answer("bo", "yes", "ana")])}
        )
        is None
    )


def test_provenance_definitions_document_the_zero_without_knowers() -> None:
    for name in ("provenance", "provenance_origin"):
        m = METRICS[name]
        assert (m.direction, m.range) == ("max", (0.0, 1.0))
        assert "0 with no knowers" in m.definition
