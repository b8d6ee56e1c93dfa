"""What the state does (design §2, "every state earns its place"): arousal narrows attention,
skill confidence shifts a choice, mood shifts what is retrieved first, the state sets the tone."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from life_strategies import layers_of, states

from harness.agents.reference.model import memory as mem
from harness.agents.reference.model.life import (
    Appraisal,
    LifeState,
    apply_event,
    arousal_level,
    attention_span,
    choose_by_skill,
    initial_state,
    mood,
    record_outcome,
    salience,
    stress,
    tone,
    uncertainty,
)
from scenarios.persona import Persona

NOON = 12 * 60  # circadian modulation is ~0.1 here; the tests set tonic arousal around it


@given(states(), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_higher_arousal_never_widens_attention(state, a, b):
    low, high = sorted((a, b))
    calm, aroused = replace(state, arousal=low), replace(state, arousal=high)
    assert attention_span(aroused) <= attention_span(calm)


def test_attention_narrows_from_six_to_two():
    night = LifeState(last_minute=4 * 60)  # the clock's trough: -0.1
    assert attention_span(replace(night, arousal=0.0)) == 6
    assert attention_span(LifeState(last_minute=11 * 60, arousal=1.0)) == 2
    # the same tonic arousal is felt less at night, so attention is wider then
    assert attention_span(replace(night, arousal=0.4)) == 5
    assert attention_span(LifeState(last_minute=11 * 60, arousal=0.4)) == 4
    p = Persona()
    shocked = apply_event(
        LifeState(last_minute=NOON), p, Appraisal(-0.8, "unknown", 0.2, 0.4, 0.9), 1, NOON
    )
    assert attention_span(shocked) < attention_span(LifeState(last_minute=NOON))


def test_higher_skill_confidence_changes_the_choice():
    s = initial_state(Persona(abilities={"lamp_light": 0.5, "window_light": 0.5}))
    options = [("use_lamp", "lamp_light", "night"), ("open_curtain", "window_light", "night")]
    assert choose_by_skill(s, options) == "open_curtain"  # a tie goes by name
    for eid in range(3):
        s = record_outcome(s, "lamp_light", "night", True, eid)
    assert choose_by_skill(s, options) == "use_lamp"
    for eid in range(3, 10):
        s = record_outcome(s, "lamp_light", "night", False, eid)
    assert choose_by_skill(s, options) == "open_curtain"


class _FlatNoise:
    def uniform(self, *key: Any) -> float:
        return 0.5

    def series(self, *key: Any) -> Any:
        return lambda last: 0.5


def test_mood_shifts_what_is_retrieved_first():
    memory = mem.Memory("ana", 50)
    mem.write(memory, 0, 1, channel="seen", subject="bridge", importance=0.3, valence=0.8)
    mem.write(memory, 0, 2, channel="seen", subject="bridge", importance=0.3, valence=-0.8)
    policy = {
        "retrieval.top_k": 2,
        "retrieval.relevance_weight": 1.0,
        "retrieval.recency_weight": 1.0,
        "memory.importance_threshold": 0.9,
    }
    query = mem.Query("bridge", "plan")
    cheerful = LifeState(valence=0.8)
    gloomy = LifeState(valence=-0.8)
    first = [
        mem.retrieve(memory, query, 60, policy, _FlatNoise(), mood=mood(s))[0].experience.event_id
        for s in (cheerful, gloomy)
    ]
    assert first == [1, 2]
    assert mood(gloomy) == -0.8


def test_tone_follows_the_state():
    assert tone(LifeState(last_minute=NOON, valence=0.1)) == "flat"
    assert tone(LifeState(last_minute=NOON, valence=0.6)) == "cheerful"
    assert tone(LifeState(last_minute=NOON, valence=-0.6)) == "low"
    assert tone(LifeState(last_minute=NOON, valence=0.6, energy_deficit=0.8)) == "tired"
    afraid = layers_of(lambda layer, e: 0.9 if e == "fear" else 0.0)
    assert tone(LifeState(last_minute=NOON, valence=0.6, arousal=0.8, emotions=afraid)) == "tense"


def test_stress_and_uncertainty_are_derived_from_fear_arousal_and_confidence():
    calm = LifeState(last_minute=NOON)
    afraid = layers_of(lambda layer, e: 0.8 if e == "fear" else 0.0)
    assert stress(replace(calm, emotions=afraid)) > stress(calm)
    assert stress(replace(calm, arousal=0.9)) > stress(calm)
    assert uncertainty(replace(calm, emotions=afraid)) > uncertainty(calm)
    sure = replace(calm, skill_confidence={"paint|desk": 0.95})
    unsure = replace(calm, skill_confidence={"paint|desk": 0.1})
    assert uncertainty(unsure) > uncertainty(calm) > uncertainty(sure)


def test_salience_grows_with_change_goal_need_and_arousal():
    s = LifeState(last_minute=NOON, hunger_deficit=0.8)
    assert salience(s) == 0.0
    assert salience(s, change=1.0) > salience(s, change=0.2) > 0
    assert salience(s, goal=True, need="food") > salience(s, goal=True)
    assert salience(replace(s, arousal=0.9), goal=True) > salience(s, goal=True)
    assert salience(replace(s, hunger_deficit=0.1), need="food") < salience(s, need="food")


@given(states())
def test_effects_are_reads(state):
    before = state.to_json()
    for read in (stress, uncertainty, salience, attention_span, mood, tone, arousal_level):
        read(state)
    choose_by_skill(state, [("a", "paint", "desk"), ("b", "repair", "lamp")])
    assert state.to_json() == before
