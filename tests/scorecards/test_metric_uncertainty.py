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
    }


def test_knowers_of_a_rumor_who_keep_the_hedge() -> None:
    answers = [
        _hedged("bo", "yes", "rumor"),  # knower, hedged
        _hedged("cy", "yes", "likely"),  # knower, hedged
        _hedged("di", "yes", "certain"),  # knower, hardened
        _hedged("ed", "yes", None),  # knower, states no modality: not preserved
        _hedged("fay", "no", "rumor"),  # wrong value: not a knower
        _hedged("ana", "yes", "certain"),  # the origin: never counted
    ]
    episode = {
        "truth": frame("truth", [fact("bo_leaves", "yes", modality="rumor", audience=AUDIENCE)]),
        "probes": frame("probes", answers),
        "exposures": heard("bo", "cy", "di", "ed", "fay", proposition="bo_leaves"),
    }
    # two of the five in the audience know it and keep the hedge
    assert uncertainty_preservation(episode) == pytest.approx(2 / 5)


def test_a_hedge_kept_by_one_of_many_is_not_a_hedge_kept() -> None:
    truth = fact("bo_leaves", "yes", modality="rumor", audience=AUDIENCE)
    episode = {
        "truth": frame("truth", [truth]),
        "probes": frame("probes", [_hedged("bo", "yes", "rumor")]),
        "exposures": heard("bo", proposition="bo_leaves"),
    }
    assert uncertainty_preservation(episode) == pytest.approx(1 / 5)
    episode["exposures"] = heard(proposition="bo_leaves")  # nothing reached bo: a guess
    assert uncertainty_preservation(episode) == 0.0


def test_only_uncertain_propositions_count() -> None:
    rumor = fact("bo_leaves", "yes", modality="rumor", audience=["ana", "bo"])
    truth = [rumor, fact()]  # bakery_closed is certain
    answers = [_hedged("bo", "yes", "rumor"), answer("bo", "yes", "ana")]
    episode = {
        "truth": frame("truth", truth),
        "probes": frame("probes", answers),
        "exposures": pd.concat([heard("bo", proposition="bo_leaves"), heard("bo")]),
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


def test_certain_utterances_of_a_rumor_or_a_falsehood_are_false_certainty() -> None:
    truth = [RUMOR, fact()]
    said = [
        _said("bo", "yes", "certain"),  # a rumor stated certain: hardened
        _said("cy", "yes", "rumor"),  # kept the hedge
        _said("di", "yes", None),  # no modality stated: not certain
        _said("bo", "no", "certain", "bakery_closed"),  # false value stated certain
        _said("cy", "yes", "certain", "bakery_closed"),  # true and certain: fine
        _said("di", "no", "likely", "bakery_closed"),  # false but hedged: not certainty
        _said("ed", "yes", "certain", "weather"),  # untracked: not counted at all
    ]
    episode = {"truth": frame("truth", truth), "utterances": frame("utterances", said)}
    assert false_certainty_rate(episode) == pytest.approx(2 / 6)


def test_silence_is_no_accuracy_so_the_rate_is_absent() -> None:
    """A rate of hardening over no statements would score silence best: it is absent."""
    assert false_certainty_rate({"truth": frame("truth", [RUMOR])}) is None
    off_topic = frame("utterances", [_said("bo", "yes", "certain", "weather")])
    assert false_certainty_rate({"truth": frame("truth", [RUMOR]), "utterances": off_topic}) is None
    assert false_certainty_rate({"utterances": off_topic}) is None
    said = frame("utterances", [_said("bo", "yes", "rumor")])
    assert false_certainty_rate({"truth": frame("truth", [RUMOR]), "utterances": said}) == 0.0


def test_saying_for_certain_what_one_saw_oneself_is_no_false_certainty() -> None:
    truth = [fact("bridge_blocked", "no", modality="rumor")]  # the rumor is false: it is open
    said = [
        _said("bo", "no", "certain", "bridge_blocked"),  # read the sign itself: it knows
        _said("cy", "no", "certain", "bridge_blocked"),  # only heard that it is open
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
    assert false_certainty_rate(episode) == pytest.approx(2 / 3)
