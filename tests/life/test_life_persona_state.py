"""The persona as validated data, and LifeState as plain JSON that round-trips exactly."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from life_strategies import ops, personas, run, states
from pydantic import ValidationError

from harness.agents.reference.model.life import EMOTIONS, LAYERS, LifeState, initial_state
from scenarios.persona import Commitment, Persona, Practice, Rule, Stance

FULL = {
    "role": "painter",
    "description": "lives alone in the room",
    "traits": {"curiosity": 0.8, "caution": 0.3, "extraversion": 0.2, "orderliness": 0.7},
    "values": ["craft", "quiet"],
    "stances": [
        {
            "id": "no_keepsakes",
            "forbids": ["touch_keepsake", "keepsake_box"],
            "reason": "the box is not mine to open",
        }
    ],
    "practices": [
        {
            "id": "tidy_desk",
            "cue": "night",
            "action": "tidy",
            "variants": ["put_away_sharp"],
            "window_minutes": 90,
            "repair_next_day": True,
        }
    ],
    "commitments": [{"id": "painting", "action": "paint", "min_minutes": 45}],
    "abilities": {"paint": 0.7, "repair": 0.3},
    "rules": [
        {"when": {"place": "desk", "occasion": "work"}, "prefer": "quiet_work"},
        {"when": {"role": "guest"}, "forbid": "open_cabinet"},
    ],
    "baselines": {"valence": 0.2, "arousal": 0.35},
}


def test_the_default_persona_is_valid_and_neutral():
    p = Persona()
    assert (p.traits.curiosity, p.baselines.valence, p.baselines.arousal) == (0.5, 0.1, 0.4)
    assert p.stances == () and p.abilities == {}


def test_a_full_persona_validates_and_answers():
    p = Persona.model_validate(FULL)
    assert isinstance(p.stances[0], Stance) and isinstance(p.practices[0], Practice)
    assert isinstance(p.commitments[0], Commitment) and p.commitments[0].min_minutes == 45
    assert not p.commitments[0].may_preempt(600, 644) and p.commitments[0].may_preempt(600, 645)
    assert [s.id for s in p.vetoes("keepsake_box")] == ["no_keepsakes"]
    assert p.vetoes("paint") == ()
    assert p.preferences({"place": "desk", "occasion": "work", "role": "host"}) == ("quiet_work",)
    assert p.preferences({"place": "desk"}) == ()
    assert p.prohibitions({"role": "guest"}) == ("open_cabinet",)
    assert Persona.model_validate(json.loads(p.model_dump_json())) == p
    assert initial_state(p).skill_confidence == {"paint|*": 0.7, "repair|*": 0.3}


@pytest.mark.parametrize(
    "bad",
    [
        {"nickname": "x"},
        {"traits": {"curiosity": 0.5, "bravery": 0.9}},
        {"stances": [{"id": "s", "forbids": ["x"], "severity": 1}]},
        {"rules": [{"when": {"weather": "rain"}, "prefer": "stay_in"}]},
        {"baselines": {"valence": 0.1, "arousal": 0.4, "dominance": 0.5}},
    ],
)
def test_unknown_keys_are_rejected(bad):
    with pytest.raises(ValidationError):
        Persona.model_validate(bad)


@pytest.mark.parametrize(
    "bad",
    [
        {"traits": {"curiosity": 1.2}},
        {"traits": {"caution": -0.1}},
        {"traits": {"extraversion": float("nan")}},
        {"abilities": {"paint": 1.5}},
        {"baselines": {"valence": -1.5}},
        {"baselines": {"arousal": 2}},
        {"commitments": [{"id": "c", "action": "a", "min_minutes": -5}]},
        {"practices": [{"id": "p", "cue": "c", "action": "a", "window_minutes": 0}]},
        {"rules": [{"when": {"place": "desk"}}]},  # neither prefer nor forbid
        {"stances": [{"id": "s", "forbids": ["x"]}, {"id": "s", "forbids": ["y"]}]},
    ],
)
def test_out_of_range_or_malformed_values_are_rejected(bad):
    with pytest.raises(ValidationError):
        Persona.model_validate(bad)


def test_the_persona_is_frozen():
    p = Persona()
    with pytest.raises(ValidationError):
        p.role = "thief"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        p.traits.caution = 0.0  # type: ignore[misc]
    assert Rule(prefer="tea").applies({"place": "anywhere"})


@settings(max_examples=200, deadline=None)
@given(states(), personas, st.lists(ops, max_size=20))
def test_life_state_round_trips_through_json_exactly(state, persona, sequence):
    for op in sequence:
        state = run(state, persona, op)
        text = json.dumps(state.to_json())
        restored = LifeState.from_json(json.loads(text))
        assert restored == state
        assert json.dumps(restored.to_json()) == text


@settings(max_examples=100, deadline=None)
@given(states(), personas, st.lists(ops, max_size=12), st.lists(ops, max_size=12))
def test_a_restored_state_continues_identically(state, persona, first, rest):
    for op in first:
        state = run(state, persona, op)
    restored = LifeState.from_json(json.loads(json.dumps(state.to_json())))
    for op in rest:
        state, restored = run(state, persona, op), run(restored, persona, op)
    assert restored == state


def test_malformed_states_are_rejected():
    with pytest.raises(ValueError):
        LifeState(valence=1.5)
    with pytest.raises(ValueError):
        LifeState(energy_deficit=-0.1)
    with pytest.raises(ValueError):
        LifeState(emotions={layer: (0.0,) * (len(EMOTIONS) - 1) for layer in LAYERS})
    with pytest.raises(ValueError):
        LifeState(baseline_shift={"dominance": 0.1})
    with pytest.raises(ValueError):
        LifeState(skill_confidence={"paint": 0.5})


def test_a_states_json_names_each_layers_emotions_and_refuses_a_layer_short_of_one():
    data = LifeState().to_json()  # a layer is a tuple in EMOTIONS order; its JSON names them
    assert data["emotions"] == {layer: dict.fromkeys(EMOTIONS, 0.0) for layer in LAYERS}
    del data["emotions"]["social"]["fear"]
    with pytest.raises(ValueError, match="emotions of social"):
        LifeState.from_json(data)
