"""`probe_recall` and `probe_hallucination`; a false source or an unseen value is caught."""

from __future__ import annotations

from typing import Any

import pytest
from scorecard_traces import answer, claim, exposure, fact, frame

from scorecards.metrics.probe_hallucination import probe_hallucination
from scorecards.metrics.probe_recall import probe_recall
from scorecards.metrics.provenance import provenance

MANGO = fact("mango_discount", "yes", modality="rumor")


def _probe(
    agent: str,
    value: str | None,
    source: str | None,
    modality: str | None = "rumor",
    *,
    tick: int = 100,
    kind: str = "probe",
) -> dict[str, Any]:
    row = answer(agent, value, source, tick=tick, proposition="mango_discount", kind=kind)
    return {**row, "answer_modality": modality}


def _told(agent: str, by: str, tick: int = 10, value: str = "yes") -> dict[str, Any]:
    return {
        **exposure(agent, "told", by, tick=tick, proposition="mango_discount", value=value),
        "modality": "rumor",
    }


def _episode(
    probes: list[dict], exposures: list[dict], said: list[dict] | None = None, truth: dict = MANGO
) -> dict:
    return {
        "truth": frame("truth", [truth]),
        "probes": frame("probes", probes),
        "exposures": frame("exposures", exposures),
        "utterances": frame("utterances", said or []),
    }


JUST_CY = fact("mango_discount", "yes", modality="rumor", audience=["ana", "cy"], private=False)


def test_recall_needs_value_source_and_modality_intact() -> None:
    probes = [
        _probe("cy", "yes", "bo"),  # bo told cy: all intact
        _probe("di", "yes", "ana"),  # the origin, whose name reached di: acceptable
        _probe("ed", "yes", "bo", "certain"),  # modality hardened
        _probe("fay", "yes", "gus"),  # gus never told fay
        _probe("gus", None, None),  # "I don't know"
        _probe("bo", "yes", "bo", kind="census"),  # a census answer is not a probe
    ]
    exposures = [_told("cy", "bo"), _told("di", "ana"), _told("ed", "bo"), _told("fay", "bo")]
    assert probe_recall(_episode(probes, exposures)) == pytest.approx(2 / 5)


def test_naming_the_origin_by_guess_is_no_recall() -> None:
    # di was told by bo, who never said where it started: "ana" is a guess
    guessed = _episode([_probe("di", "yes", "ana")], [_told("di", "bo")])
    assert probe_recall(guessed) == 0.0
    assert probe_hallucination(guessed) == 1.0


def test_recall_is_absent_without_probes() -> None:
    census = [_probe("cy", "yes", "bo", kind="census")]
    assert probe_recall(_episode(census, [])) is None
    assert probe_recall({}) is None


def test_hallucination_of_values_never_seen_and_sources_that_never_told() -> None:
    probes = [
        _probe("cy", "yes", "bo", tick=100),  # founded
        _probe("cy", "yes", "bo", tick=5, kind="census"),  # before any exposure: unfounded
        _probe("di", "no", "bo"),  # di was told "yes", never "no": unfounded
        _probe("ed", "yes", "gus"),  # gus never told ed: unfounded
        _probe("ed", "yes", "self"),  # self is provenance's business, not a hallucination
        _probe("fay", "yes", "ana"),  # the true origin, whose name bo passed on: fair
        _probe("gus", None, "bo"),  # asserts nothing: not counted
        _probe("ana", "yes", None, kind="census"),  # the origin is never counted
    ]
    said, told_fay = claim("bo", "fay", "ana", event_id=9, proposition="mango_discount")
    exposures = [_told("cy", "bo"), _told("di", "bo"), _told("ed", "bo"), told_fay]
    assert probe_hallucination(_episode(probes, exposures, [said])) == pytest.approx(3 / 6)


def test_hallucination_is_zero_without_assertions_and_absent_without_questions() -> None:
    assert probe_hallucination(_episode([_probe("cy", None, None)], [])) == 0.0
    assert probe_hallucination(_episode([], [])) is None
    assert probe_hallucination({}) is None


def test_a_false_source_is_caught_by_provenance_and_hallucination() -> None:
    census = [_probe("cy", "yes", "bo", kind="census")]
    honest = _episode(census, [_told("cy", "bo")], truth=JUST_CY)
    liar = _episode([_probe("cy", "yes", "di", kind="census")], [_told("cy", "bo")], truth=JUST_CY)
    assert (provenance(honest), probe_hallucination(honest)) == (1.0, 0.0)
    assert (provenance(liar), probe_hallucination(liar)) == (0.0, 1.0)


def test_a_value_never_exposed_is_caught_by_hallucination() -> None:
    # cy says "yes" (the truth) and names bo, but bo only ever told cy "no"
    invented = _episode(
        [_probe("cy", "yes", "bo", kind="census")], [_told("cy", "bo", value="no")], truth=JUST_CY
    )
    assert probe_hallucination(invented) == 1.0
    # the true value, but not one anything told cy: a guess, so no knower and no provenance
    assert provenance(invented) == 0.0


def test_an_outsider_asked_a_private_matter_counts_for_containment_not_recall() -> None:
    secret = {**MANGO, "private": True, "audience": ["ana", "cy"]}
    asked = [_probe("cy", "yes", "ana"), _probe("di", "yes", "bo")]  # di is an outsider
    episode = _episode(asked, [_told("cy", "ana"), _told("di", "bo")], truth=secret)
    assert probe_recall(episode) == 1.0  # cy's answer only: di knowing it is a leak
    # what an outsider passed on is a leak's fruit, not a hand-over: no recall for cy either
    leaked = _episode(asked, [_told("cy", "bo"), _told("di", "bo")], truth=secret)
    assert probe_recall(leaked) == 0.0
    assert (
        probe_recall(_episode([_probe("di", "yes", "bo")], [_told("di", "bo")], truth=secret))
        is None
    )
