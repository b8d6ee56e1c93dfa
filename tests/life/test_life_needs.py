"""Unsatisfiable needs: retry budget, unreachable-for-now with back-off, one ask, downgrade,
release by new evidence."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.agents.reference.model.life import (
    Decision,
    NeedTracker,
    decide,
    failed,
    new_evidence,
    pressure,
    set_value,
    succeeded,
    unreachable,
)

LIGHT = NeedTracker("light", ("lamp", "window"), value=0.8)


def test_each_method_gets_a_retry_budget_then_is_unreachable_for_now():
    t = failed(LIGHT, "lamp", 100)
    assert decide(t, 101)[1] == Decision("try", "lamp")  # one failure: still within budget
    t = failed(t, "lamp", 101)
    assert unreachable(t, "lamp", 102) and t.locks["lamp"] == 101 + 60
    assert decide(t, 102)[1] == Decision("substitute", "window")
    assert decide(t, 161)[1] == Decision("try", "lamp")  # the back-off has lapsed


def test_back_off_doubles_and_is_capped():
    t, waits = LIGHT, []
    minute = 0
    for _ in range(8):
        t = failed(failed(t, "lamp", minute), "lamp", minute)
        waits.append(t.locks["lamp"] - minute)
        minute = t.locks["lamp"]
    assert waits == [60, 120, 240, 480, 960, 960, 960, 960]


def _exhaust(t: NeedTracker, minute: int) -> NeedTracker:
    for method in t.methods:
        t = failed(failed(t, method, minute), method, minute)
    return t


def test_when_nothing_works_ask_once_then_downgrade_then_wait():
    t = _exhaust(LIGHT, 100)
    t, d1 = decide(t, 101)
    t, d2 = decide(t, 102)
    t, d3 = decide(t, 103)
    t, d4 = decide(t, 104)
    assert d1 == Decision("ask_for_help", "lamp")
    assert d2 == Decision("downgrade")
    assert d3 == d4 == Decision("wait", "lamp")
    assert pressure(t) == pytest.approx(0.4)  # a downgraded need pushes half as hard
    t = _exhaust(t, 200)  # fails again after the back-off: still no second ask
    assert decide(t, 201)[1].kind == "wait"


def test_new_evidence_releases_the_locks_and_allows_one_new_ask():
    t = _exhaust(LIGHT, 100)
    t, _ = decide(t, 101)  # asked
    t, _ = decide(t, 102)  # downgraded
    t = new_evidence(t, 103)
    assert not t.downgraded and t.last_evidence == 103
    assert decide(t, 103)[1] == Decision("try", "lamp")
    t = _exhaust(t, 104)
    t, d = decide(t, 105)
    assert d == Decision("ask_for_help", "lamp")
    assert decide(t, 106)[1] == Decision("downgrade")
    assert new_evidence(t, 107).locks == {}


def test_success_relieves_the_need_and_clears_the_method():
    t = succeeded(failed(LIGHT, "lamp", 0), "lamp", relief=0.5)
    assert t.value == pytest.approx(0.3) and t.tries == {}
    assert set_value(t, 5.0).value == t.cap and set_value(t, -1).value == 0.0


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["fail_lamp", "fail_window", "decide", "evidence"]), st.integers(0, 200)
        ),
        max_size=60,
    )
)
def test_at_most_one_ask_between_pieces_of_new_evidence(steps):
    t, minute, asks = LIGHT, 0, 0
    for kind, dt in steps:
        minute += dt
        if kind == "decide":
            t, d = decide(t, minute)
            asks += d.kind == "ask_for_help"
            assert asks <= 1
            if d.kind in ("try", "substitute"):
                assert not unreachable(t, d.method, minute)
        elif kind == "evidence":
            t, asks = new_evidence(t, minute), 0
        else:
            t = failed(t, kind.removeprefix("fail_"), minute)
        assert 0 <= t.value <= t.cap
        assert all(n < t.budget for n in t.tries.values())
        assert all(v - minute <= t.max_backoff for v in t.locks.values() if v > minute)
        assert NeedTracker.from_json(json.loads(json.dumps(t.to_json()))) == t


def test_bad_trackers_are_rejected():
    with pytest.raises(ValueError):
        NeedTracker("light", ())
    with pytest.raises(ValueError):
        NeedTracker("light", ("lamp", "lamp"))
    with pytest.raises(ValueError):
        failed(LIGHT, "candle", 0)
