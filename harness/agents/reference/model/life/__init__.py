"""The reference agent's life: dynamic state, its pure updaters and its effects (design §2).

state — `LifeState`, the stored base states; dynamics — drift over time in closed form, meals,
hysteresis, the clock; quick — `advance`, that drift written out for the hot path; appraisal —
one appraisal per event and the learning it drives; effects — derived quantities and what the
state changes (attention, mood, choice, tone); motivation — the talk budget and the
recoverable hold; needs — unsatisfiable needs. Everything is pure and deterministic: functions
return new values and never mutate inputs.
"""

from .appraisal import (
    CAUSES,
    DISGUST_KINDS,
    Appraisal,
    apply_event,
    appraise,
    is_scar,
    record_outcome,
    skill_confidence,
)
from .dynamics import (
    aftershock_level,
    arousal_baseline,
    arousal_level,
    circadian,
    eat,
    emotion_baseline,
    emotion_level,
    emotion_levels,
    initial_state,
    valence_baseline,
    wants_food,
    wants_rest,
)
from .effects import attention_span, choose_by_skill, mood, salience, stress, tone, uncertainty
from .motivation import Hold, Motivation, hold, hold_strength, remaining, spend, substitute
from .needs import (
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
from .quick import advance
from .state import EMOTIONS, LAYERS, Aftershock, LifeState, consumed_key

__all__ = [
    "CAUSES",
    "DISGUST_KINDS",
    "EMOTIONS",
    "LAYERS",
    "Aftershock",
    "Appraisal",
    "Decision",
    "Hold",
    "LifeState",
    "Motivation",
    "NeedTracker",
    "advance",
    "aftershock_level",
    "apply_event",
    "appraise",
    "arousal_baseline",
    "arousal_level",
    "attention_span",
    "choose_by_skill",
    "circadian",
    "consumed_key",
    "decide",
    "eat",
    "emotion_baseline",
    "emotion_level",
    "emotion_levels",
    "failed",
    "hold",
    "hold_strength",
    "initial_state",
    "is_scar",
    "mood",
    "new_evidence",
    "pressure",
    "record_outcome",
    "remaining",
    "salience",
    "set_value",
    "skill_confidence",
    "spend",
    "stress",
    "substitute",
    "succeeded",
    "tone",
    "uncertainty",
    "unreachable",
    "valence_baseline",
    "wants_food",
    "wants_rest",
]
