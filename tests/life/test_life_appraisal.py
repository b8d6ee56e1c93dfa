"""Events in the life model: once per event id, bounded steps, which emotion from which appraisal,
aftershocks and scars, skill confidence."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from life_strategies import appraisals, event_ids, felt, ops, personas, run, states

from harness.agents.reference.model.life import (
    EMOTIONS,
    Appraisal,
    LifeState,
    advance,
    apply_event,
    appraise,
    arousal_level,
    emotion_level,
    initial_state,
    is_scar,
    record_outcome,
    skill_confidence,
)
from scenarios.persona import Persona

DAY = 24 * 60


@settings(max_examples=200, deadline=None)
@given(states(), personas, appraisals, event_ids)
def test_an_event_moves_valence_and_arousal_at_most_02(state, persona, appraisal, eid):
    after = apply_event(state, persona, appraisal, eid, state.last_minute)
    assert replace(after) == after  # built unchecked, it passes the checked constructor
    assert abs(after.valence - state.valence) <= 0.2 + 1e-12
    assert abs(after.arousal - state.arousal) <= 0.2 + 1e-12
    assert abs(arousal_level(after) - arousal_level(state)) <= 0.2 + 1e-12


@settings(max_examples=200, deadline=None)
@given(states(), personas, appraisals, appraisals, event_ids, st.lists(ops, max_size=8))
def test_the_same_event_id_moves_the_state_once(state, persona, first, second, eid, between):
    once = apply_event(state, persona, first, eid, state.last_minute)
    assert apply_event(once, persona, first, eid, once.last_minute) == once
    assert apply_event(once, persona, second, eid, once.last_minute) == once  # any re-appraisal
    later = once
    for op in between:
        later = run(later, persona, op)
    assert apply_event(later, persona, second, eid, later.last_minute) == later
    assert record_outcome(
        record_outcome(state, "paint", "desk", True, eid), "paint", "desk", True, eid
    ) == record_outcome(state, "paint", "desk", True, eid)


def test_each_kind_of_learning_consumes_an_event_id_separately():
    s = initial_state(Persona())
    a = appraise("spill", goal_related=True, caused_by="self", expected=False)
    s = record_outcome(apply_event(s, Persona(), a, 5, 0), "paint", "desk", False, 5)
    assert s.consumed == ("appraisal:5", "skill:5")
    assert skill_confidence(s, "paint", "desk") == pytest.approx(0.45)


def test_events_must_be_applied_at_the_state_minute():
    s = LifeState(last_minute=100)
    with pytest.raises(ValueError):
        apply_event(
            s,
            Persona(),
            appraise("x", goal_related=False, caused_by="object", expected=True),
            1,
            120,
        )


def _push(appraisal: Appraisal) -> dict[str, float]:
    s = initial_state(Persona())
    after = apply_event(s, Persona(), appraisal, 1, 0)
    return {e: felt(after, "momentary", e) for e in EMOTIONS}


def test_which_emotion_comes_from_which_appraisal():
    threat = _push(Appraisal(0.0, "object", 0.5, 0.9, threat=0.8))
    assert threat["fear"] > 0 and threat["joy"] == threat["anger"] == threat["sadness"] == 0
    good = _push(Appraisal(0.6, "self", 0.8, 0.9, 0.0))
    assert good["joy"] > 0 and sum(good.values()) == good["joy"]
    helpless = _push(Appraisal(-0.6, "object", 0.1, 0.9, 0.0))
    assert helpless["sadness"] > 0 and helpless["anger"] == 0
    wronged = _push(Appraisal(-0.6, "other", 0.9, 0.9, 0.0))
    assert wronged["anger"] > 0 and wronged["sadness"] < helpless["sadness"]
    assert _push(Appraisal(-1.0, "other", 0.0, 0.5, 1.0))["disgust"] == 0  # never by itself
    assert _push(Appraisal(-0.3, "object", 0.5, 0.9, 0.0, kind="spoiled"))["disgust"] > 0


def test_another_s_doing_reaches_the_social_layer_only():
    p = Persona()
    by_other = apply_event(initial_state(p), p, Appraisal(-0.6, "other", 0.5, 0.9, 0.0), 1, 0)
    by_thing = apply_event(initial_state(p), p, Appraisal(-0.6, "object", 0.5, 0.9, 0.0), 1, 0)
    assert felt(by_other, "social", "anger") > 0
    assert all(v == 0 for v in by_thing.emotions["social"])


def test_caution_makes_the_same_threat_more_frightening():
    threat = Appraisal(0.0, "unknown", 0.3, 0.5, 0.6)
    timid, bold = Persona(traits={"caution": 0.9}), Persona(traits={"caution": 0.1})
    fear = [
        felt(apply_event(initial_state(p), p, threat, 1, 0), "momentary", "fear")
        for p in (timid, bold)
    ]
    assert fear[0] > fear[1]


def test_appraise_rules():
    a = appraise(
        "door_stuck", goal_related=True, caused_by="object", expected=False, can_handle=True
    )
    assert a.goal_impact == -0.5 and a.cause == "object" and a.certainty == 0.5
    assert a.threat == pytest.approx(0.2) and a.controllability == pytest.approx(0.7)
    b = appraise(
        "gift", goal_related=True, caused_by="other", expected=True, helps=True, severity=0.8
    )
    assert b.goal_impact == 0.8 and b.threat == 0 and b.certainty == 0.9
    assert appraise("chat", goal_related=False, caused_by="self", expected=True).goal_impact == 0
    with pytest.raises(ValueError):
        appraise("x", goal_related=True, caused_by="ana", expected=True)


def test_a_large_shock_leaves_an_aftershock_that_fades_within_24_to_48_hours():
    p = Persona()
    s = apply_event(initial_state(p), p, Appraisal(-0.75, "object", 0.2, 0.9, 0.3), 1, 0)
    (shock,) = s.aftershocks
    assert 24 * 60 <= shock.end_minute - shock.start_minute <= 48 * 60
    assert shock.emotion == "sadness"
    evening, morning = (advance(s, p, m, asleep=False) for m in (6 * 60, 20 * 60))
    assert emotion_level(evening, "sadness") > emotion_level(morning, "sadness") > 0
    ended = advance(s, p, shock.end_minute, asleep=False)
    assert ended.aftershocks == ()  # what is left is the ordinary background, nothing more
    assert emotion_level(ended, "sadness") == felt(ended, "background", "sadness")
    small = apply_event(initial_state(p), p, Appraisal(-0.5, "object", 0.2, 0.9, 0.3), 1, 0)
    assert small.aftershocks == ()


@settings(max_examples=200, deadline=None)
@given(states(), personas, appraisals, event_ids)
def test_aftershocks_last_24_to_48_hours(state, persona, appraisal, eid):
    after = apply_event(state, persona, appraisal, eid, state.last_minute)
    for shock in after.aftershocks[len(state.aftershocks) :]:
        assert 24 * 60 <= shock.end_minute - shock.start_minute <= 48 * 60
        assert max(appraisal.threat, abs(appraisal.goal_impact)) >= 0.7


@settings(max_examples=300, deadline=None)
@given(states(), personas, appraisals, event_ids)
def test_only_a_severe_threat_to_a_goal_scars(state, persona, appraisal, eid):
    after = apply_event(state, persona, appraisal, eid, state.last_minute)
    if after.baseline_shift != state.baseline_shift:
        assert appraisal.threat >= 0.9 and appraisal.goal_impact <= -0.8 and is_scar(appraisal)
        assert (
            after.baseline_shift.get("fear", 0) > state.baseline_shift.get("fear", 0)
            or after.baseline_shift["fear"] == 0.3
        )  # capped
    elif is_scar(appraisal) and f"appraisal:{eid}" not in state.consumed:
        assert state.baseline_shift.get("fear", 0) >= 0.3  # only the cap stops a scar
        assert state.baseline_shift.get("valence", 0) <= -0.3


@settings(max_examples=200, deadline=None)
@given(states(), personas, st.lists(ops, max_size=30))
def test_scars_never_fade_or_heal(state, persona, sequence):
    for op in sequence:
        after = run(state, persona, op)
        for key, shift in state.baseline_shift.items():
            if key == "valence":
                assert after.baseline_shift[key] <= shift
            else:
                assert after.baseline_shift[key] >= shift
        state = after


def test_a_scar_is_permanent_and_capped():
    p = Persona()
    severe = Appraisal(-0.9, "other", 0.1, 0.9, 0.95)
    s = apply_event(initial_state(p), p, severe, 1, 0)
    assert s.baseline_shift == {"fear": 0.1, "valence": -0.1}
    s = advance(s, p, 100 * DAY, asleep=False)
    assert s.baseline_shift == {"fear": 0.1, "valence": -0.1}
    assert felt(s, "background", "fear") == pytest.approx(0.1)  # the new floor
    assert s.valence == pytest.approx(0.0)  # persona baseline 0.1, scarred by -0.1
    for eid in range(2, 8):
        s = apply_event(s, p, severe, eid, s.last_minute)
    assert s.baseline_shift == pytest.approx({"fear": 0.3, "valence": -0.3})
    # the ordinary bad day does not scar
    bad_day = appraise(
        "fall", goal_related=True, caused_by="object", expected=False, severity=0.7, danger=0.5
    )
    assert not is_scar(bad_day)


@settings(max_examples=200, deadline=None)
@given(
    states(),
    st.sampled_from(["paint", "repair"]),
    st.sampled_from(["desk", "lamp"]),
    st.booleans(),
    event_ids,
)
def test_skill_confidence_moves_at_most_005_per_outcome(state, skill, situation, ok, eid):
    after = record_outcome(state, skill, situation, ok, eid)
    before = skill_confidence(state, skill, situation)
    now = skill_confidence(after, skill, situation)
    assert abs(now - before) <= 0.05 + 1e-12
    if f"skill:{eid}" not in state.consumed:
        assert now == pytest.approx(min(1.0, max(0.0, before + (0.05 if ok else -0.05))))
    assert record_outcome(after, skill, situation, not ok, eid) == after


def test_only_attributable_outcomes_teach():
    s = initial_state(Persona(abilities={"grasp": 0.7}))
    stuck_drawer = record_outcome(s, "grasp", "drawer", False, 3, attributable=False)
    assert stuck_drawer == s
    assert skill_confidence(s, "grasp", "drawer") == 0.7  # the ability prior
    learned = record_outcome(s, "grasp", "drawer", True, 3)
    assert skill_confidence(learned, "grasp", "drawer") == pytest.approx(0.75)
    assert skill_confidence(learned, "grasp", "shelf") == 0.7  # per situation
    assert skill_confidence(s, "juggle", "square") == 0.5
