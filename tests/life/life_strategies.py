"""Hypothesis strategies and a small op interpreter shared by the tests of the life model."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from harness.agents.reference.model.life import (
    CAUSES,
    EMOTIONS,
    LAYERS,
    Aftershock,
    Appraisal,
    LifeState,
    advance,
    apply_event,
    eat,
    record_outcome,
)
from scenarios.persona import Baselines, Persona, Traits

unit = st.floats(0.0, 1.0, allow_nan=False)
signed = st.floats(-1.0, 1.0, allow_nan=False)
minutes = st.integers(0, 10 * 24 * 60)

personas = st.builds(
    Persona,
    traits=st.builds(Traits, curiosity=unit, caution=unit, extraversion=unit, orderliness=unit),
    baselines=st.builds(Baselines, valence=signed, arousal=unit),
    abilities=st.dictionaries(st.sampled_from(["paint", "repair", "cook"]), unit, max_size=3),
)

appraisals = st.builds(
    Appraisal,
    goal_impact=signed,
    cause=st.sampled_from(CAUSES),
    controllability=unit,
    certainty=unit,
    threat=unit,
    kind=st.sampled_from(["event", "fall", "spoiled", "gift"]),
)


@st.composite
def aftershocks(draw: Any, start: int) -> Aftershock:
    begin = draw(st.integers(max(0, start - 3000), start))
    return Aftershock(
        draw(st.sampled_from(EMOTIONS)),
        draw(unit),
        begin,
        begin + draw(st.integers(24 * 60, 48 * 60)),
    )


@st.composite
def states(draw: Any) -> LifeState:
    """Any valid LifeState, not only those reachable from a fresh agent."""
    minute = draw(minutes)
    return LifeState(
        last_minute=minute,
        energy_deficit=draw(unit),
        hunger_deficit=draw(unit),
        resting=draw(st.booleans()),
        eating=draw(st.booleans()),
        valence=draw(signed),
        arousal=draw(unit),
        emotions={layer: tuple(draw(unit) for _ in EMOTIONS) for layer in LAYERS},
        baseline_shift=draw(
            st.dictionaries(st.sampled_from(["fear", "valence"]), st.floats(-0.3, 0.3), max_size=2)
        ),
        aftershocks=tuple(draw(st.lists(aftershocks(minute), max_size=3))),
        skill_confidence=draw(
            st.dictionaries(
                st.sampled_from(["paint|desk", "repair|lamp", "cook|*"]), unit, max_size=3
            )
        ),
        consumed=tuple(
            draw(st.lists(st.sampled_from(["appraisal:1", "skill:2", "meal:3"]), unique=True))
        ),
    )


event_ids = st.integers(0, 6)  # a small range, so that ids repeat
ops = st.one_of(
    st.tuples(st.just("advance"), st.integers(0, 3000), st.booleans()),
    st.tuples(st.just("event"), appraisals, event_ids),
    st.tuples(
        st.just("outcome"),
        st.sampled_from(["paint", "repair"]),
        st.sampled_from(["desk", "lamp"]),
        st.booleans(),
        event_ids,
    ),
    st.tuples(st.just("eat"), event_ids),
)


def run(state: LifeState, persona: Persona, op: tuple[Any, ...]) -> LifeState:
    """Apply one op; events happen at the state's own minute."""
    kind = op[0]
    if kind == "advance":
        return advance(state, persona, state.last_minute + op[1], op[2])
    if kind == "event":
        return apply_event(state, persona, op[1], op[2], state.last_minute)
    if kind == "outcome":
        return record_outcome(state, op[1], op[2], op[3], op[4])
    return eat(state, op[1])


def felt(state: LifeState, layer: str, emotion: str) -> float:
    """One emotion's value in one layer (a layer's values are in EMOTIONS order)."""
    return state.emotions[layer][EMOTIONS.index(emotion)]


def layers_of(value: Any) -> dict[str, tuple[float, ...]]:
    """Every layer with `value(layer, emotion)` for each emotion, in EMOTIONS order."""
    return {layer: tuple(value(layer, e) for e in EMOTIONS) for layer in LAYERS}
