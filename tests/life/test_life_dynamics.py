"""Time in the life model: ranges, decay to baseline, closed-form composition, hysteresis, meals,
aftershocks, the clock."""

from __future__ import annotations

import copy
import itertools
import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from life_strategies import felt, layers_of, ops, personas, run, states

from harness.agents.reference.model.life import (
    EMOTIONS,
    LAYERS,
    Aftershock,
    LifeState,
    advance,
    aftershock_level,
    arousal_baseline,
    arousal_level,
    attention_span,
    circadian,
    eat,
    emotion_baseline,
    emotion_level,
    emotion_levels,
    initial_state,
    salience,
    stress,
    uncertainty,
    valence_baseline,
    wants_food,
    wants_rest,
)
from harness.agents.reference.model.life.effects import MIN_SPAN
from scenarios.persona import Baselines, Persona

DAY = 24 * 60
EXACT = (
    "last_minute",
    "energy_deficit",
    "hunger_deficit",
    "resting",
    "eating",
    "baseline_shift",
    "aftershocks",
    "skill_confidence",
    "consumed",
)


def assert_in_range(s: LifeState) -> None:
    assert 0.0 <= s.energy_deficit <= 1.0 and 0.0 <= s.hunger_deficit <= 1.0
    assert -1.0 <= s.valence <= 1.0 and 0.0 <= s.arousal <= 1.0
    for layer in LAYERS:
        for e in EMOTIONS:
            assert 0.0 <= felt(s, layer, e) <= 1.0
            assert 0.0 <= emotion_level(s, e) <= 1.0
    assert all(0.0 <= v <= 1.0 for v in s.skill_confidence.values())
    assert 0.0 <= arousal_level(s) <= 1.0
    for derived in (stress(s), uncertainty(s), salience(s, change=1.0, goal=True, need="food")):
        assert 0.0 <= derived <= 1.0
    assert 2 <= attention_span(s) <= 6


@settings(max_examples=200, deadline=None)
@given(states(), personas, st.lists(ops, max_size=25))
def test_every_state_stays_in_range_under_any_sequence(state, persona, sequence):
    assert_in_range(state)
    for op in sequence:
        before = copy.deepcopy(state)
        after = run(state, persona, op)
        assert state == before  # pure: the input is never mutated
        assert_in_range(after)
        state = after


@settings(max_examples=200, deadline=None)
@given(states(), personas, st.integers(0, 5000), st.integers(0, 5000), st.booleans())
def test_advance_composes(state, persona, a, b, asleep):
    tm, t1 = state.last_minute + a, state.last_minute + a + b
    stepwise = advance(advance(state, persona, tm, asleep), persona, t1, asleep)
    direct = advance(state, persona, t1, asleep)
    for name in EXACT:  # deficits, flags and records: exactly
        assert getattr(stepwise, name) == getattr(direct, name), name
    assert stepwise.valence == pytest.approx(direct.valence, abs=1e-9)
    assert stepwise.arousal == pytest.approx(direct.arousal, abs=1e-9)
    assert arousal_level(stepwise) == pytest.approx(arousal_level(direct), abs=1e-9)
    for layer in LAYERS:
        for e in EMOTIONS:
            assert felt(stepwise, layer, e) == pytest.approx(felt(direct, layer, e), abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(states(), personas, st.lists(st.tuples(st.integers(1, 900), st.booleans()), max_size=8))
def test_many_small_steps_equal_one_jump_per_sleep_interval(state, persona, steps):
    jumped = state
    for dt, asleep in steps:  # one minute at a time ...
        for _ in range(min(dt, 60)):
            state = advance(state, persona, state.last_minute + 1, asleep)
        jumped = advance(jumped, persona, jumped.last_minute + min(dt, 60), asleep)  # ... or not
        assert (state.energy_deficit, state.hunger_deficit, state.resting, state.eating) == (
            jumped.energy_deficit,
            jumped.hunger_deficit,
            jumped.resting,
            jumped.eating,
        )
        assert state.valence == pytest.approx(jumped.valence, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(states(), personas, st.lists(st.tuples(st.integers(0, 2000), st.booleans()), max_size=10))
def test_without_events_everything_decays_toward_its_baseline(state, persona, steps):
    for dt, asleep in steps:
        after = advance(state, persona, state.last_minute + dt, asleep)
        v_base = valence_baseline(state, persona)
        assert abs(after.valence - v_base) <= abs(state.valence - v_base) + 1e-12
        a_base = arousal_baseline(persona, asleep)
        assert abs(after.arousal - a_base) <= abs(state.arousal - a_base) + 1e-12
        for layer in LAYERS:
            for e in EMOTIONS:
                base = emotion_baseline(state, layer, e)
                assert (
                    abs(felt(after, layer, e) - base) <= abs(felt(state, layer, e) - base) + 1e-12
                )
        assert after.baseline_shift == state.baseline_shift  # nothing but an event scars
        state = after


def test_after_a_quiet_day_most_of_it_is_back_at_baseline():
    persona = Persona(baselines=Baselines(valence=0.2, arousal=0.3))
    s = LifeState(valence=-0.9, arousal=1.0, emotions=layers_of(lambda layer, e: 1.0))
    s = advance(s, persona, 2 * DAY, asleep=False)
    assert s.valence == pytest.approx(0.2, abs=0.01)
    assert s.arousal == pytest.approx(0.3, abs=1e-6)
    assert felt(s, "momentary", "fear") < 1e-6
    assert felt(s, "background", "fear") < 0.1  # background: 12 h half-life


def test_deficits_drift_at_the_seed_rates():
    p = Persona()
    s = advance(initial_state(p), p, 100, asleep=False)
    assert (s.energy_deficit, s.hunger_deficit) == (0.2, 0.15)
    s = advance(s, p, 120, asleep=True)
    assert (s.energy_deficit, s.hunger_deficit) == (0.12, 0.18)
    s = advance(s, p, 10_000, asleep=True)
    assert (s.energy_deficit, s.hunger_deficit) == (0.0, 1.0)  # clamped


def test_rest_hysteresis_enters_above_065_and_stays_until_below_035():
    p = Persona()
    s = LifeState(energy_deficit=0.6)
    s = advance(s, p, 25, asleep=False)  # 0.65: not above yet
    assert s.energy_deficit == 0.65 and not wants_rest(s)
    s = advance(s, p, 26, asleep=False)
    assert wants_rest(s)
    seen = []
    while s.energy_deficit > 0.2:
        s = advance(s, p, s.last_minute + 1, asleep=True)
        seen.append((s.energy_deficit, wants_rest(s)))
    assert all(flag for level, flag in seen if level >= 0.35)
    assert not any(flag for level, flag in seen if level < 0.35)
    s = advance(s, p, s.last_minute + 100, asleep=False)  # back to 0.4: still no rest candidate
    assert s.energy_deficit == pytest.approx(0.4) and not wants_rest(s)


@settings(max_examples=100, deadline=None)
@given(
    st.floats(0.0, 1.0),
    st.booleans(),
    st.lists(st.tuples(st.integers(0, 200), st.booleans()), max_size=12),
)
def test_rest_flag_equals_minute_by_minute_hysteresis(start, flag, steps):
    p = Persona()
    start = round(start, 6)
    ref_flag = flag if 0.35 <= start <= 0.65 else start > 0.65  # a consistent starting flag
    s = LifeState(energy_deficit=start, resting=ref_flag)
    level = round(s.energy_deficit * 1_000_000)
    for dt, asleep in steps:
        for _ in range(dt):
            level = min(max(level + (-4000 if asleep else 2000), 0), 1_000_000)
            ref_flag = True if level > 650_000 else False if level < 350_000 else ref_flag
        s = advance(s, p, s.last_minute + dt, asleep)
        assert s.energy_deficit == level / 1_000_000
        assert wants_rest(s) == ref_flag


def test_a_meal_lowers_hunger_by_045_once_per_event():
    s = LifeState(hunger_deficit=0.8, eating=True)
    once = eat(s, 7)
    assert once.hunger_deficit == pytest.approx(0.35) and wants_food(once)  # not below 0.35
    assert eat(once, 7) == once  # the same meal again: nothing
    twice = eat(once, 8)
    assert twice.hunger_deficit == 0.0 and not wants_food(twice)


@given(states(), st.integers(0, 9))
def test_eat_moves_hunger_by_exactly_045_clamped(state, eid):
    after = eat(state, eid)
    if f"meal:{eid}" in state.consumed:
        assert after == state
    else:
        assert after.hunger_deficit == pytest.approx(
            max(0.0, state.hunger_deficit - 0.45), abs=1e-6
        )
        assert eat(after, eid) == after


def test_hunger_raises_a_food_candidate_above_065():
    p = Persona()
    s = advance(LifeState(hunger_deficit=0.5), p, 100, asleep=False)
    assert s.hunger_deficit == 0.65 and not wants_food(s)
    assert wants_food(advance(s, p, 101, asleep=False))


def test_aftershock_fades_linearly_to_exactly_zero_by_its_end():
    shock = Aftershock("fear", 0.3, 1000, 1000 + 36 * 60)
    levels = [aftershock_level(shock, m) for m in range(1000, shock.end_minute + 5, 60)]
    assert levels[0] == pytest.approx(0.3)
    assert all(a > b for a, b in itertools.pairwise(levels) if a > 0)
    assert aftershock_level(shock, shock.end_minute) == 0.0
    assert aftershock_level(shock, shock.end_minute + 10_000) == 0.0
    s = LifeState(last_minute=1000, aftershocks=(shock,))
    assert emotion_level(s, "fear") == pytest.approx(0.3)
    s = advance(s, Persona(), shock.end_minute, asleep=False)
    assert s.aftershocks == () and emotion_level(s, "fear") == 0.0


@given(states(), personas, st.integers(1, 3 * DAY))
def test_every_aftershock_is_gone_by_its_end(state, persona, dt):
    after = advance(state, persona, state.last_minute + dt, asleep=False)
    assert all(a.end_minute > after.last_minute for a in after.aftershocks)
    for a in state.aftershocks:
        assert aftershock_level(a, a.end_minute) == 0.0


def test_the_clock_lowers_night_arousal_below_late_morning():
    assert min(range(DAY), key=circadian) == 4 * 60
    assert max(range(DAY), key=circadian) == 11 * 60
    assert all(abs(circadian(m + 1) - circadian(m)) < 0.002 for m in range(2 * DAY))  # smooth
    night, morning = LifeState(last_minute=3 * 60), LifeState(last_minute=10 * 60)
    assert arousal_level(night) < arousal_level(morning)
    assert arousal_level(night) == pytest.approx(0.4 + circadian(3 * 60))


def test_sleep_lowers_the_arousal_baseline_one_notch():
    p = Persona()
    asleep = advance(initial_state(p), p, 600, asleep=True)
    awake = advance(initial_state(p), p, 600, asleep=False)
    assert asleep.arousal < awake.arousal == pytest.approx(0.4)


def test_time_runs_forward_only():
    with pytest.raises(ValueError):
        advance(LifeState(last_minute=10), Persona(), 9, asleep=False)
    s = LifeState(last_minute=10)
    assert advance(s, Persona(), 10, asleep=True) is s


def test_initial_state_starts_at_the_persona_baselines():
    p = Persona(baselines=Baselines(valence=-0.2, arousal=0.7), abilities={"paint": 0.8})
    s = initial_state(p, 300)
    assert (s.valence, s.arousal, s.last_minute) == (-0.2, 0.7, 300)
    assert s.skill_confidence == {"paint|*": 0.8}
    assert math.isclose(valence_baseline(s, p), -0.2)


def plain_advance(state: LifeState, persona: Persona, t1: int, asleep: bool) -> LifeState:
    """`advance` as first written: each value decayed on its own, the state rebuilt through
    its checked constructor."""
    from dataclasses import replace

    from harness.agents.reference.model.life import dynamics as d

    dt = t1 - state.last_minute
    if dt == 0:
        return state
    energy0, hunger0 = d._units(state.energy_deficit), d._units(state.hunger_deficit)
    rate = d.ENERGY_ASLEEP if asleep else d.ENERGY_AWAKE
    energy1 = d._clamp_units(energy0 + rate * dt)
    hunger1 = d._clamp_units(hunger0 + d.HUNGER_RATE * dt)
    return replace(
        state,
        last_minute=t1,
        energy_deficit=energy1 / d.UNITS,
        hunger_deficit=hunger1 / d.UNITS,
        resting=d._hysteresis(d._hysteresis(state.resting, energy0), energy1),
        eating=d._hysteresis(d._hysteresis(state.eating, hunger0), hunger1),
        valence=d._decay(
            state.valence, valence_baseline(state, persona), dt, d.VALENCE_HALF_LIFE, -1.0, 1.0
        ),
        arousal=d._decay(
            state.arousal, arousal_baseline(persona, asleep), dt, d.AROUSAL_HALF_LIFE, 0.0, 1.0
        ),
        emotions=layers_of(
            lambda layer, e: d._decay(
                felt(state, layer, e),
                emotion_baseline(state, layer, e),
                dt,
                d.LAYER_HALF_LIFE[layer],
                0.0,
                1.0,
            )
        ),
        aftershocks=tuple(a for a in state.aftershocks if a.end_minute > t1),
    )


@settings(max_examples=300, deadline=None)
@given(states(), personas, st.integers(0, 5000), st.booleans())
def test_advance_gives_exactly_the_plain_per_value_computation(state, persona, dt, asleep):
    # one decay factor per layer and an unchecked successor: the same floats, bit for bit
    fast = advance(state, persona, state.last_minute + dt, asleep)
    plain = plain_advance(state, persona, state.last_minute + dt, asleep)
    assert fast == plain and fast.to_json() == plain.to_json()  # plain: a checked constructor
    assert repr(fast) == repr(plain)  # -0.0 and 0.0 compare equal but print apart


@settings(max_examples=200, deadline=None)
@given(
    states(),
    personas,
    st.integers(1, 5000),
    st.booleans(),
    st.lists(st.sampled_from([0.0, -0.0]), min_size=15, max_size=15),
    st.sets(st.sampled_from(LAYERS)),
)
def test_a_layer_at_zero_decays_as_the_plain_computation_does(
    state, persona, dt, asleep, zeros, zeroed
):
    # a layer all at zero (0.0 or -0.0) takes advance's shortcut: still the same floats
    emotions = {
        layer: tuple(zeros[i * 5 + j] if layer in zeroed else v for j, v in enumerate(vs))
        for i, (layer, vs) in enumerate(state.emotions.items())
    }
    state = replace(state, emotions=emotions)
    fast = advance(state, persona, state.last_minute + dt, asleep)
    plain = plain_advance(state, persona, state.last_minute + dt, asleep)
    assert repr(fast) == repr(plain) and fast.to_json() == plain.to_json()


@given(states())
def test_all_emotion_levels_at_once_are_each_emotion_level_and_give_the_same_stress(state):
    levels = emotion_levels(state)
    assert repr(levels) == repr({e: emotion_level(state, e) for e in EMOTIONS})
    assert repr(stress(state, levels)) == repr(stress(state))
    assert attention_span(state) >= MIN_SPAN  # what attend's shortcut rests on


@given(
    st.one_of(st.floats(allow_nan=True), st.sampled_from([0.0, -0.0, 1.0, -1.0])),
    st.sampled_from([(0.0, 1.0), (-1.0, 1.0), (-0.2, 0.2)]),
)
def test_clamp_is_min_of_max_value_for_value(x, bounds):
    from harness.agents.reference.model.life import appraisal, dynamics

    lo, hi = bounds
    plain = min(max(x, lo), hi)
    for clamp in (dynamics._clamp, appraisal._clamp):
        got = clamp(x, lo, hi)
        assert repr(got) == repr(plain)  # the very float: NaN stays NaN, -0.0 stays -0.0
