"""`containment`: a secret told with "don't tell" must not reach outsiders."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from scorecard_traces import answer, exposure, fact, frame

from scorecards.metrics.containment import containment

SECRET = fact("bo_pregnant", "yes", origin="ana", audience=["ana", "bo"])


def _said(speaker: str, listener: str, value: str = "yes") -> dict[str, Any]:
    return {
        "speaker": speaker,
        "listener": listener,
        "proposition": "bo_pregnant",
        "value": value,
        "modality": "certain",
    }


def _census(agent: str, value: str | None, tick: int = 100) -> dict[str, Any]:
    return answer(agent, value, tick=tick, proposition="bo_pregnant")


def test_outsiders_who_reveal_the_secret_lower_containment() -> None:
    # named agents: ana (origin), bo (audience), cy, di, ed, fay -> outsiders cy, di, ed, fay
    exposures = [exposure("bo", "told", "ana", proposition="bo_pregnant")]
    said = [
        _said("bo", "cy"),  # bo may know; telling cy is bo's leak, cy has not revealed yet
        _said("cy", "di"),  # cy reveals by saying it
        _said("ed", "fay", value="no"),  # a wrong value reveals nothing
    ]
    probes = [
        _census("di", "yes"),  # di reveals at the census
        _census("ed", None),
        _census("fay", "no"),
        _census("bo", "yes"),  # audience: allowed
    ]
    episode = {
        "truth": frame("truth", [SECRET]),
        "exposures": frame("exposures", exposures),
        "utterances": frame("utterances", said),
        "probes": frame("probes", probes),
    }
    assert containment(episode) == pytest.approx(1 - 2 / 4)


def test_a_leak_at_an_earlier_census_is_not_undone_by_forgetting() -> None:
    probes = [_census("cy", "yes", tick=50), _census("cy", None, tick=100)]
    episode = {"truth": frame("truth", [SECRET]), "probes": frame("probes", probes)}
    assert containment(episode) == 0.0


def test_pooled_over_private_propositions_and_public_ones_ignored() -> None:
    other = fact("di_moving", "yes", origin="di", audience=["di", "ed"])
    probes = [
        _census("cy", "yes"),  # bo_pregnant outsiders: cy, di, ed -> cy reveals
        _census("di", None),
        answer("ed", "yes", proposition="di_moving"),  # ed is in di_moving's audience
        answer("cy", None, proposition="di_moving"),  # di_moving outsiders: ana, bo, cy
        answer("ana", None, proposition="public"),
        answer("bo", "yes", proposition="public"),
    ]
    truth = [SECRET, other, fact("public", "yes")]
    episode = {"truth": frame("truth", truth), "probes": frame("probes", probes)}
    assert containment(episode) == pytest.approx(1 - 1 / 6)


def test_no_outsiders_is_full_containment_and_no_secret_is_absent() -> None:
    probes = [_census("bo", "yes")]
    episode = {"truth": frame("truth", [SECRET]), "probes": frame("probes", probes)}
    assert containment(episode) == 1.0
    assert containment({"truth": frame("truth", [SECRET])}) == 1.0
    assert (
        containment({"truth": frame("truth", [fact()]), "probes": frame("probes", probes)}) is None
    )


def test_an_outsider_told_is_a_leak_whatever_it_later_answers() -> None:
    """Telling every secret to everyone while the hearers answer "don't know" at the census
    contains nothing: the harness saw the telling."""
    told = [exposure(a, "told", "bo", tick=20, proposition="bo_pregnant") for a in ("cy", "di")]
    scripted_line = {**_said("ana", "ed"), "scripted": True, "tick": 30, "event_id": 7}
    heard_line = {**exposure("ed", "told", "ana", tick=30, proposition="bo_pregnant")}
    episode = {
        "truth": frame("truth", [SECRET]),
        "exposures": pd.concat(
            [frame("exposures", told), frame("exposures", [heard_line]).assign(event_id=7)]
        ),
        "utterances": frame("utterances", [scripted_line]).assign(event_id=7),
        "probes": frame("probes", [_census(a, None) for a in ("cy", "di", "ed", "fay")]),
    }
    # cy and di were told by bo; ed heard the scenario's own scripted line: not a leak
    assert containment(episode) == pytest.approx(1 - 2 / 4)
