"""`uncertainty_preservation` and `false_certainty_rate`: does "might" survive the hops?"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from scorecard_traces import answer, exposure, fact, frame, heard

from scorecards.metrics.false_certainty_rate import false_certainty_rate
from scorecards.metrics.uncertainty_preservation import uncertainty_preservation

RUMOR = fact("bo_leaves", "yes", modality="rumor")
AUDIENCE = ["ana", "bo", "cy", "di", "ed", "fay"]


def _hedged(agent: str, value: str | None, modality: str | None) -> dict[str, Any]:
    return {**answer(agent, value, "ana", proposition="bo_leaves"), "answer_modality": modality}


def _said(
    speaker: str, value: str | None, modality: str | None, proposition: str = "bo_leaves"
) -> dict[str, Any]:
    return {
        "speaker": speaker,
        "listener": "zed",
        "proposition": proposition,
        "value": value,
        "modality": modality,
        "tick": 20,  # after what `heard` tells (tick 10)
    }


def _rumor_heard(*agents: str, modality: str = "rumor") -> pd.DataFrame:
    return heard(*agents, proposition="bo_leaves", modality=modality)


def test_knowers_of_a_rumor_who_keep_the_hedge() -> None:
    answers = [
        _hedged("bo", "yes", "rumor"),  # knower, as it was told
        _hedged("cy", "yes", "likely"),  # knower, one step surer than told: hardened
        _hedged("di", "yes", "certain"),  # knower, hardened
        _hedged("ed", "yes", None),  # knower, unqualified: says it is so, hardened
        _hedged("fay", "no", "rumor"),  # wrong value: not a knower
        _hedged("ana", "yes", "certain"),  # the origin: never counted
    ]
    episode = {
        "truth": frame("truth", [fact("bo_leaves", "yes", modality="rumor", audience=AUDIENCE)]),
        "probes": frame("probes", answers),
        "exposures": _rumor_heard("bo", "cy", "di", "ed", "fay"),
    }
    # one of the five in the audience knows it as surely as it was told, and no surer
    assert uncertainty_preservation(episode) == pytest.approx(1 / 5)
    # told it likely, likely and rumor are both fair (a hedge of hearsay)
    episode["exposures"] = _rumor_heard("bo", "cy", "di", "ed", "fay", modality="likely")
    assert uncertainty_preservation(episode) == pytest.approx(2 / 5)


def test_who_saw_it_for_itself_is_neither_a_failure_nor_counted() -> None:
    """A sign read with one's own eyes makes certain right: the reader has nothing uncertain
    to keep, so it is left out rather than failed."""
    answers = [_hedged("bo", "yes", "rumor"), _hedged("cy", "yes", "certain")]
    seen = frame("exposures", [exposure("cy", "read", tick=5, proposition="bo_leaves")])
    episode = {
        "truth": frame("truth", [fact("bo_leaves", "yes", modality="rumor", audience=AUDIENCE)]),
        "probes": frame("probes", answers),
        "exposures": pd.concat([_rumor_heard("bo"), seen]),
    }
    assert uncertainty_preservation(episode) == pytest.approx(1 / 4)  # bo of bo, di, ed, fay


def test_a_hedge_kept_by_one_of_many_is_not_a_hedge_kept() -> None:
    truth = fact("bo_leaves", "yes", modality="rumor", audience=AUDIENCE)
    episode = {
        "truth": frame("truth", [truth]),
        "probes": frame("probes", [_hedged("bo", "yes", "rumor")]),
        "exposures": _rumor_heard("bo"),
    }
    assert uncertainty_preservation(episode) == pytest.approx(1 / 5)
    episode["exposures"] = _rumor_heard()  # nothing reached bo: a guess
    assert uncertainty_preservation(episode) == 0.0


def test_only_uncertain_propositions_count() -> None:
    rumor = fact("bo_leaves", "yes", modality="rumor", audience=["ana", "bo"])
    truth = [rumor, fact()]  # bakery_closed is certain
    answers = [_hedged("bo", "yes", "rumor"), answer("bo", "yes", "ana")]
    episode = {
        "truth": frame("truth", truth),
        "probes": frame("probes", answers),
        "exposures": pd.concat([_rumor_heard("bo"), heard("bo")]),
    }
    assert uncertainty_preservation(episode) == 1.0


def test_no_knowers_is_zero_and_no_uncertain_truth_is_absent() -> None:
    """Silence keeps no hedge: the audience is there, and none of it knows."""
    silent = {
        "truth": frame("truth", [RUMOR]),
        "probes": frame("probes", [_hedged("bo", None, None)]),
    }
    assert uncertainty_preservation(silent) == 0.0
    assert uncertainty_preservation({"truth": frame("truth", [RUMOR])}) == 0.0
    assert uncertainty_preservation({"truth": frame("truth", [fact()])}) is None
    assert uncertainty_preservation({}) is None


def test_certain_claims_beyond_the_speakers_evidence_are_false_certainty() -> None:
    truth = [RUMOR, fact()]
    said = [
        _said("bo", "yes", "certain"),  # told a rumor, says it certain: hardened
        _said("cy", "yes", "rumor"),  # kept the hedge
        _said("di", "yes", None),  # unqualified: says it is so, hardened
        _said("bo", "no", "certain", "bakery_closed"),  # a value nothing told bo: hardened
        _said("cy", "yes", "certain", "bakery_closed"),  # told certain, says certain: fine
        _said("di", "no", "likely", "bakery_closed"),  # a guess, but hedged: not certainty
        _said("ed", "yes", "certain", "weather"),  # untracked: not counted at all
        _said("ed", "yes", "certain"),  # told it certain by someone who hardened it: fine
    ]
    exposures = pd.concat(
        [
            _rumor_heard("bo", "cy", "di"),
            heard("bo", "cy", "di"),
            _rumor_heard("ed", modality="certain"),
        ]
    )
    episode = {
        "truth": frame("truth", truth),
        "utterances": frame("utterances", said),
        "exposures": exposures,
    }
    assert false_certainty_rate(episode) == pytest.approx(3 / 7)  # of 7 distinct claims


def test_a_claim_repeated_is_one_claim_and_copies_dilute_nothing() -> None:
    hardened = [_said("bo", "yes", "certain")]
    padded = [*hardened, *[_said("bo", "yes", "certain", "bakery_closed")] * 9]
    exposures = pd.concat([_rumor_heard("bo"), heard("bo")])

    def rate(said: list[dict[str, Any]]) -> float | None:
        episode = {
            "truth": frame("truth", [RUMOR, fact()]),
            "utterances": frame("utterances", said),
            "exposures": exposures,
        }
        return false_certainty_rate(episode)

    assert rate(hardened) is None  # one claim: too little to judge a speaker by
    assert rate(padded) == pytest.approx(1 / 2)  # nine copies: one claim


def test_silence_is_no_accuracy_so_the_rate_is_absent() -> None:
    """A rate of hardening over no statements would score silence best: it is absent."""
    assert false_certainty_rate({"truth": frame("truth", [RUMOR])}) is None
    off_topic = frame("utterances", [_said("bo", "yes", "certain", "weather")])
    assert false_certainty_rate({"truth": frame("truth", [RUMOR]), "utterances": off_topic}) is None
    assert false_certainty_rate({"utterances": off_topic}) is None
    said = frame("utterances", [_said("bo", "yes", "rumor")])
    one = {"truth": frame("truth", [RUMOR]), "utterances": said, "exposures": _rumor_heard("bo")}
    # one faithful claim is not the best value: too little to judge, the rate is absent
    assert false_certainty_rate(one) is None
    two = {**one, "exposures": _rumor_heard("bo", "cy")}
    two["utterances"] = frame(
        "utterances", [_said("bo", "yes", "rumor"), _said("cy", "yes", "rumor")]
    )
    assert false_certainty_rate(two) == 0.0


def test_saying_for_certain_what_one_saw_oneself_is_no_false_certainty() -> None:
    truth = [fact("bridge_blocked", "no", modality="rumor")]  # the rumor is false: it is open
    said = [
        _said("bo", "no", "certain", "bridge_blocked"),  # read the sign itself: it knows
        _said("cy", "no", "certain", "bridge_blocked"),  # bo told it so, certain
        _said("di", "no", "certain", "bridge_blocked"),  # said before it saw the sign
    ]
    seen = [
        {**exposure("bo", "read", tick=5, proposition="bridge_blocked", value="no")},
        {**exposure("cy", "told", "bo", tick=5, proposition="bridge_blocked", value="no")},
        {**exposure("di", "read", tick=50, proposition="bridge_blocked", value="no")},
    ]
    said = [{**s, "tick": 20} for s in said]
    episode = {
        "truth": frame("truth", truth),
        "utterances": frame("utterances", said),
        "exposures": frame("exposures", seen),
    }
    # cy, told it certain, may say it certain; di said it before it saw anything: hardened
    assert false_certainty_rate(episode) == pytest.approx(1 / 3)
