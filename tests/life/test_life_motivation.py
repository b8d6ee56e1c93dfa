"""The talk budget and the recoverable hold: wanting to speak is not speaking."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.agents.reference.model.life import (
    Motivation,
    hold,
    hold_strength,
    remaining,
    spend,
    substitute,
)

DAY = 24 * 60


def test_the_hold_fades_linearly_to_zero_in_20_minutes():
    m = hold(Motivation(), "tidy_desk", 600)
    strengths = [hold_strength(m, 600 + k) for k in range(25)]
    assert strengths[0] == 1.0 and strengths[10] == pytest.approx(0.5)
    assert strengths[20] == 0.0 and strengths[24] == 0.0
    steps = [a - b for a, b in itertools.pairwise(strengths[:21])]
    assert steps == pytest.approx([0.05] * 20)  # linear
    assert substitute(m, 615) == "tidy_desk" and substitute(m, 620) is None


@given(st.integers(0, 3 * DAY), st.integers(0, 19), st.integers(0, 40))
def test_a_new_hold_replaces_and_never_adds(start, gap, later):
    first = hold(Motivation(), "water_plants", start)
    second = hold(first, "read", start + gap)
    t = start + gap + later
    assert hold_strength(second, t) == hold_strength(hold(Motivation(), "read", start + gap), t)
    assert hold_strength(second, t) <= 1.0
    assert substitute(second, start + gap) == "read"


def test_no_hold_no_strength():
    assert hold_strength(Motivation(), 100) == 0.0 and substitute(Motivation(), 100) is None
    with pytest.raises(ValueError):
        hold(Motivation(), "", 10)


def test_the_daily_budget_is_spent_and_resets_the_next_day():
    m = Motivation(budget=2)
    m, ok1 = spend(m, 600)
    m, ok2 = spend(m, 610)
    m, ok3 = spend(m, 620)
    assert (ok1, ok2, ok3) == (True, True, False)
    assert remaining(m, 630) == 0 and remaining(m, DAY + 1) == 2
    m, ok = spend(m, DAY + 480)
    assert ok and m.day == 2 and m.spent == 1


def test_speaking_releases_the_hold_and_refusal_keeps_it():
    m = hold(Motivation(budget=1), "sketch", 100)
    spoken, ok = spend(m, 105)
    assert ok and spoken.hold is None
    refused, ok = spend(hold(spoken, "sketch", 110), 111)
    assert not ok and substitute(refused, 111) == "sketch"


@given(
    st.lists(st.tuples(st.sampled_from(["spend", "hold"]), st.integers(0, 300)), max_size=30),
    st.integers(0, 5),
)
def test_never_more_talk_than_the_budget_per_day(steps, budget):
    m, minute, talked = Motivation(budget=budget), 0, {}
    for kind, dt in steps:
        minute += dt
        if kind == "spend":
            m, ok = spend(m, minute)
            talked[m.day] = talked.get(m.day, 0) + ok
        else:
            m = hold(m, "walk", minute)
        assert Motivation.from_json(json.loads(json.dumps(m.to_json()))) == m
    assert all(n <= budget for n in talked.values())


def test_time_runs_forward_only():
    m, _ = spend(Motivation(), 2 * DAY)
    with pytest.raises(ValueError):
        spend(m, 10)
