"""What the dynamic state does: derived quantities and the effects other code wires in.

Derived, never stored: stress, uncertainty, salience. Effects (design §2, "every
state earns its place"): felt arousal narrows attention, valence is the mood for mood-congruent
retrieval, skill confidence shifts a choice, and the state sets the tone of rendered text.
Emotion changes which memories surface and how things are said, never a memory's content.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .appraisal import skill_confidence
from .dynamics import arousal_level, emotion_level
from .state import LifeState

MAX_SPAN, MIN_SPAN = 6, 2  # observations per tick at arousal 0 and at arousal 1
TENSE_AT = 0.45  # stress at or above this sounds tense
CHEERFUL_AT, LOW_AT = 0.3, -0.3  # valence thresholds for tone
TIRED_AT = 0.65  # the rest candidate threshold


def stress(state: LifeState, levels: Mapping[str, float] | None = None) -> float:
    """0..1 from threat (fear), felt arousal and helplessness (sadness: harm it could not
    control): stress comes from threat, arousal and controllability. `levels`:
    the state's `emotion_levels`, when already read."""
    fear = emotion_level(state, "fear") if levels is None else levels["fear"]
    sadness = emotion_level(state, "sadness") if levels is None else levels["sadness"]
    return _unit(0.4 * fear + 0.3 * arousal_level(state) + 0.3 * sadness)


def uncertainty(state: LifeState) -> float:
    """0..1: how unsure the agent feels about what will happen and whether it can cope — fear,
    plus low confidence in its learned skills (0.5 when nothing is learned yet)."""
    learned = [v for k, v in state.skill_confidence.items() if not k.endswith("|*")]
    doubt = 1.0 - (math.fsum(learned) / len(learned) if learned else 0.5)
    return _unit(0.6 * emotion_level(state, "fear") + 0.4 * doubt)


def salience(
    state: LifeState,
    *,
    change: float = 0.0,
    goal: bool = False,
    social: bool = False,
    need: str | None = None,
) -> float:
    """0..1: how strongly a stimulus stands out — abrupt change, goal, relationship and need
    relevance, amplified by felt arousal. With no feature at all it is 0.

    `need` is "rest" or "food": the stimulus serves that need, weighted by the deficit.
    """
    pressure = {"rest": state.energy_deficit, "food": state.hunger_deficit}.get(need or "", 0.0)
    raw = (
        0.35 * _unit(change) + (0.25 if goal else 0.0) + (0.15 if social else 0.0) + 0.25 * pressure
    )
    return _unit(raw * (0.5 + arousal_level(state)))


def attention_span(state: LifeState) -> int:
    """How many observations get through the attention filter per tick: 6 when calm, narrowing
    linearly to 2 at full arousal (high arousal narrows attention)."""
    return math.floor(MAX_SPAN - (MAX_SPAN - MIN_SPAN) * arousal_level(state) + 0.5)


def mood(state: LifeState) -> float:
    """-1..1, the mood for mood-congruent retrieval (memory.retrieve's `mood`)."""
    return state.valence


def choose_by_skill(state: LifeState, options: Sequence[tuple[str, str, str]]) -> str:
    """Of (action, skill, situation) options, the action the agent is most confident in; ties
    go to the alphabetically first action."""
    if not options:
        raise ValueError("choose_by_skill needs at least one option")
    best = min(options, key=lambda o: (-skill_confidence(state, o[1], o[2]), o[0]))
    return best[0]


def tone(state: LifeState) -> str:
    """One word for how rendered text should sound: tense / tired / cheerful / low / flat."""
    if stress(state) >= TENSE_AT:
        return "tense"
    if state.energy_deficit > TIRED_AT:
        return "tired"
    if state.valence >= CHEERFUL_AT:
        return "cheerful"
    if state.valence <= LOW_AT or emotion_level(state, "sadness") >= 0.4:
        return "low"
    return "flat"


def _unit(x: float) -> float:
    return min(max(x, 0.0), 1.0)
