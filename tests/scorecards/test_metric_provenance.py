"""`provenance` (the informant) and `provenance_origin` (where it started): two questions a
knower's census answer must answer separately."""

from __future__ import annotations

import pytest
from scorecard_traces import answer, claim, exposure, fact, frame

from scorecards.metrics import METRICS
from scorecards.metrics.provenance import provenance
from scorecards.metrics.provenance_origin import provenance_origin


def _episode(answers: list[dict], exposures: list[dict], said=(), **truth: object) -> dict:
    """An episode of one public fact whose audience is, unless given, the origin and whoever
    answered: a share of the audience reads as a share of those answers."""
    truth.setdefault("private", False)
    if "audience" not in truth:
        answering = [a["agent"] for a in answers if a["agent"] != "ana"]
        truth["audience"] = ["ana", *dict.fromkeys(answering)]
    return {
        "truth": frame("truth", [fact(**truth)]),
        "probes": frame("probes", answers),
        "exposures": frame("exposures", exposures),
        "utterances": frame("utterances", list(said)),
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


def test_provenance_is_a_share_of_the_audience_so_knowing_little_is_not_knowing_well() -> None:
    answers = [
        answer("bo", "yes", "ana"),  # told by the origin: ok
        answer("cy", "yes", "bo"),  # told by bo: ok
        answer("di", "yes", None),  # never exposed: a guess, not a knower
        answer("ed", "yes", "cy"),  # cy never told ed: not ok
        answer("ana", "yes", "self"),  # origin: not counted
        answer("zed", "no", "ana"),  # wrong value: not a knower
    ]
    exposures = [
        exposure("bo", "told", "ana"),
        exposure("cy", "told", "bo"),
        exposure("ed", "told", "bo"),
        exposure("zed", "told", "ana"),
    ]
    assert provenance(_episode(answers, exposures)) == pytest.approx(2 / 5)
    # one faithful knower among five is one fifth, not "every knower named its source"
    few = _episode([answer("bo", "yes", "ana")], [exposure("bo", "told", "ana")])
    audience = ["ana", "bo", "cy", "di", "ed", "zed"]
    few["truth"] = frame("truth", [fact(audience=audience, private=False)])
    assert provenance(few) == pytest.approx(1 / 5)


def test_the_origin_is_the_true_origin_or_self_after_seeing_it() -> None:
    bo_cy, told_cy = claim("bo", "cy", "ana", event_id=7)  # bo says where it started
    bo_ed, told_ed = claim("bo", "ed", None, event_id=8)  # bo passes it on unsourced
    hops = [told_cy, exposure("di", "seen"), told_ed]
    answers = [
        _origin("cy", "ana", "bo"),  # told by bo what ana started: origin kept
        _origin("di", "self", "self"),  # saw it for itself
        _origin("ed", "bo", "bo"),  # took the informant for the origin: lost
        _origin("bo", None, "ana"),  # never exposed: not a knower
    ]
    said = [bo_cy, bo_ed]
    assert provenance_origin(_episode(answers, hops, said)) == pytest.approx(2 / 4)
    told_self = [_origin("ed", "self", "bo")]  # self without a first-hand exposure
    assert provenance_origin(_episode(told_self, hops, said)) == 0.0


def test_an_origin_whose_name_never_reached_the_agent_is_a_guess() -> None:
    bo_ed, told_ed = claim("bo", "ed", None, event_id=8)  # bo never said where it started
    guess = _episode([_origin("ed", "ana", "bo")], [told_ed], [bo_ed])
    assert provenance_origin(guess) == 0.0
    bo_ed, told_ed = claim("bo", "ed", "ana", event_id=8)  # bo did: now ed can know it
    assert provenance_origin(_episode([_origin("ed", "ana", "bo")], [told_ed], [bo_ed])) == 1.0
    # the origin telling it herself makes her name reach the listener too
    direct = [exposure("ed", "told", "ana")]
    assert provenance_origin(_episode([_origin("ed", "ana", "ana")], direct)) == 1.0


def test_the_two_provenance_metrics_answer_different_questions() -> None:
    said, told = claim("bo", "cy", "ana", event_id=7)
    informant_only = [_origin("cy", "bo", "bo")]
    origin_only = [_origin("cy", "ana", None)]
    assert (
        provenance(_episode(informant_only, [told], [said])),
        provenance_origin(_episode(informant_only, [told], [said])),
    ) == (1.0, 0.0)
    assert (
        provenance(_episode(origin_only, [told], [said])),
        provenance_origin(_episode(origin_only, [told], [said])),
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


def test_provenance_definitions_are_shares_of_the_audience() -> None:
    for name in ("provenance", "provenance_origin"):
        m = METRICS[name]
        assert (m.direction, m.range) == ("max", (0.0, 1.0))
        assert "audience" in m.definition
