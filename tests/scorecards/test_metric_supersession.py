"""`supersession`: saying what replaced what, asked of agents who heard of the replacement."""

from __future__ import annotations

from typing import Any

import pytest
from scorecard_traces import answer, exposure, fact, frame

from scorecards.metrics.supersession import supersession

OLD = fact("at_square", "true")
NEW = fact("at_park", "true", supersedes="at_square")


def _asked(agent: str, replaced_by: str | None, tick: int = 100, **kw: Any) -> dict[str, Any]:
    row = answer(agent, "true", None, tick=tick, proposition="at_square", **kw)
    return {**row, "answer_replaced_by": replaced_by}


def _episode(answers: list[dict], exposures: list[dict]) -> dict:
    return {
        "truth": frame("truth", [OLD, NEW]),
        "probes": frame("probes", answers),
        "exposures": frame("exposures", exposures),
    }


def test_agents_who_heard_the_replacement_are_asked_to_name_it() -> None:
    heard = [
        exposure("bo", "told", "ana", proposition="at_park", value="true", tick=50),
        exposure("cy", "seen", proposition="at_park", value="true", tick=50),
        exposure("di", "seen", proposition="at_park", value="true", tick=150),
        exposure("ed", "told", "ana", proposition="at_park", value="false", tick=50),
    ]
    answers = [
        _asked("bo", "at_park"),  # names it
        _asked("cy", None),  # heard of it, cannot say it replaced the square
        _asked("di", None),  # heard only after the answer: not asked of it
        _asked("ed", None),  # heard a false version: not counted
        _asked("fay", None, kind="probe"),  # never heard of it
    ]
    assert supersession(_episode(answers, heard)) == pytest.approx(1 / 2)


def test_absent_without_a_replacement_or_anyone_who_heard_of_it() -> None:
    assert supersession(_episode([_asked("bo", None)], [])) is None
    plain = {"truth": frame("truth", [OLD]), "probes": frame("probes", [_asked("bo", None)])}
    assert supersession(plain) is None
