"""Events and outcomes: one appraisal per event and the learning it drives (design §2).

Valence and arousal alone cannot tell "the cup slipped" from "someone knocked it over", so each
important event is appraised once — goal impact, cause, controllability, certainty, threat — and
the appraisal moves valence and arousal (at most ±0.2 each), pushes momentary emotions (with a
smaller share into the background and, for events caused by another, the social layer), may
leave a fading aftershock and, rarely, a permanent scar. Every update here is consumed once per
event id: "appraisal:<id>", "skill:<id>".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from scenarios.persona import Persona

from .quick import unchecked
from .state import EMOTIONS, Aftershock, LifeState, consumed_key

CAUSES = ("self", "other", "object", "unknown")
DISGUST_KINDS = frozenset({"disgust", "spoiled", "filth", "contamination"})
MAX_STEP = 0.2  # one event moves valence and arousal at most this much
MOMENTARY_PUSH = 0.6  # the full-strength push of an appraisal into the momentary layer
BACKGROUND_SHARE = 0.15  # share of that push that also colours the background
SOCIAL_SHARE = 0.4  # share that goes into the social layer when another caused the event
AFTERSHOCK_AT = 0.7  # a shock this large (threat or |goal impact|) leaves an aftershock
AFTERSHOCK_SCALE = 0.3  # its starting magnitude per unit of shock
AFTERSHOCK_MIN, AFTERSHOCK_MAX = 24 * 60, 48 * 60  # minutes, grows with the shock
SCAR_THREAT, SCAR_IMPACT = 0.9, -0.8  # only threat >= 0.9 with goal impact <= -0.8 scars
SCAR_STEP, SCAR_CAP = 0.1, 0.3  # each scar shifts fear +0.1 and valence -0.1, at most 0.3 all told
SKILL_STEP = 0.05  # one attributable outcome moves skill confidence at most this much
SKILL_PRIOR = 0.5  # confidence in a skill nothing is known about


@dataclass(frozen=True)
class Appraisal:
    """One event as the agent reads it. `kind` names the event (disgust comes only from kinds in
    DISGUST_KINDS)."""

    goal_impact: float  # -1 hinders .. +1 helps the current commitment
    cause: str  # self / other / object / unknown
    controllability: float  # 0..1: can the agent deal with it
    certainty: float  # 0..1: how reliable the information is
    threat: float  # 0..1: to body, valued things or boundaries
    kind: str = "event"

    def __post_init__(self) -> None:
        if self.cause not in CAUSES:
            raise ValueError(f"cause must be one of {CAUSES}, got {self.cause!r}")
        if not -1.0 <= self.goal_impact <= 1.0:
            raise ValueError(f"goal_impact out of -1..1: {self.goal_impact}")
        for name in ("controllability", "certainty", "threat"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} out of 0..1: {getattr(self, name)}")


@lru_cache(maxsize=256)  # pure, of a few flags: the same few appraisals all day
def appraise(
    kind: str,
    *,
    goal_related: bool,
    caused_by: str,
    expected: bool,
    helps: bool = False,
    severity: float = 0.5,
    danger: float = 0.0,
    can_handle: bool = True,
) -> Appraisal:
    """Simple rules from what the agent can tell about an event.

    goal impact: ±severity if it bears on the current commitment (+ if it helps), else 0.
    controllability: 0.7 if the agent can deal with it, else 0.2; +0.2 if it caused it itself,
    -0.1 if the cause is unknown. certainty: 0.9 if expected, 0.5 if it came as a surprise.
    threat: `danger`, +0.2 when an unexpected event hinders a goal.
    """
    if caused_by not in CAUSES:
        raise ValueError(f"caused_by must be one of {CAUSES}, got {caused_by!r}")
    severity = _clamp(severity, 0.0, 1.0)
    impact = (severity if helps else -severity) if goal_related else 0.0
    control = (0.7 if can_handle else 0.2) + {"self": 0.2, "unknown": -0.1}.get(caused_by, 0.0)
    surprise_threat = 0.2 if not expected and impact < 0 else 0.0
    return Appraisal(
        goal_impact=impact,
        cause=caused_by,
        controllability=_clamp(control, 0, 1),
        certainty=0.9 if expected else 0.5,
        threat=_clamp(danger + surprise_threat, 0.0, 1.0),
        kind=kind,
    )


def apply_event(
    state: LifeState, persona: Persona, appraisal: Appraisal, event_id: int | str, minute: int
) -> LifeState:
    """The state after one appraised event at `minute` (the state must already be advanced to
    it). A second call with the same event id returns the state unchanged."""
    key = consumed_key("appraisal", event_id)
    if key in state.consumed:
        return state
    if minute != state.last_minute:
        raise ValueError(
            f"advance the state to minute {minute} first (it is at {state.last_minute})"
        )
    a = appraisal
    good, bad = max(0.0, a.goal_impact), max(0.0, -a.goal_impact)
    dv = MAX_STEP * (a.goal_impact * (0.5 + 0.5 * a.certainty) - 0.5 * a.threat)
    da = MAX_STEP * max(a.threat, abs(a.goal_impact), 1.0 - a.certainty)
    traits = persona.traits
    push = {
        "joy": good,
        "sadness": bad * (1.0 - a.controllability),
        "fear": a.threat * (1.0 - 0.5 * a.controllability) * (0.5 + traits.caution),
        "anger": bad if a.cause == "other" else 0.0,
        "disgust": max(0.5, bad) if a.kind in DISGUST_KINDS else 0.0,
    }
    for e, p in push.items():  # _clamp(MOMENTARY_PUSH * p, 0.0, 1.0) written out
        x = MOMENTARY_PUSH * p
        x = 0.0 if x < 0.0 else x  # noqa: FURB136
        push[e] = 1.0 if x > 1.0 else x  # noqa: FURB136
    social = SOCIAL_SHARE * (0.5 + traits.extraversion) if a.cause == "other" else 0.0
    share = {"background": BACKGROUND_SHARE, "momentary": 1.0, "social": social}
    emotions: dict[str, tuple[float, ...]] = {}
    for layer, values in state.emotions.items():
        pushed: list[float] = []
        part = share[layer]
        for e, v in zip(EMOTIONS, values, strict=True):  # a layer's values in EMOTIONS order
            x = v + part * push[e]  # _clamp(x, 0.0, 1.0) written out: 15 values an event
            pushed.append(0.0 if x < 0.0 else 1.0 if x > 1.0 else x)  # noqa: FURB136
        emotions[layer] = tuple(pushed)
    shock = max(a.threat, abs(a.goal_impact))
    aftershocks = state.aftershocks
    strongest = (  # the first of the strongest pushes: only a large shock needs it
        max(EMOTIONS, key=lambda e: (push[e], -EMOTIONS.index(e)))
        if shock >= AFTERSHOCK_AT
        else EMOTIONS[0]
    )
    if shock >= AFTERSHOCK_AT and push[strongest] > 0.0:
        span = (shock - AFTERSHOCK_AT) / (1.0 - AFTERSHOCK_AT)
        length = round(AFTERSHOCK_MIN + span * (AFTERSHOCK_MAX - AFTERSHOCK_MIN))
        aftershocks = (
            *aftershocks,
            Aftershock(strongest, round(AFTERSHOCK_SCALE * shock, 6), minute, minute + length),
        )
    shift = state.baseline_shift  # never mutated: a new dict only for a scar
    if is_scar(a):
        shift = dict(shift)
        shift["fear"] = min(SCAR_CAP, shift.get("fear", 0.0) + SCAR_STEP)
        shift["valence"] = max(-SCAR_CAP, shift.get("valence", 0.0) - SCAR_STEP)
    return unchecked(  # each value in range by its clamp or cap (SCAR_CAP < 1)
        state,
        valence=_clamp(state.valence + _clamp(dv, -MAX_STEP, MAX_STEP), -1.0, 1.0),
        arousal=_clamp(state.arousal + _clamp(da, -MAX_STEP, MAX_STEP), 0.0, 1.0),
        emotions=emotions,
        baseline_shift=shift,
        aftershocks=aftershocks,
        consumed=(*state.consumed, key),
    )


def is_scar(appraisal: Appraisal) -> bool:
    """Whether an event is severe enough to shift a baseline for good (rare by design)."""
    return appraisal.threat >= SCAR_THREAT and appraisal.goal_impact <= SCAR_IMPACT


def skill_confidence(state: LifeState, skill: str, situation: str) -> float:
    """Confidence in a skill in a situation: learned value, else the ability prior ("skill|*"),
    else 0.5."""
    conf = state.skill_confidence
    return conf.get(f"{skill}|{situation}", conf.get(f"{skill}|*", SKILL_PRIOR))


def record_outcome(
    state: LifeState,
    skill: str,
    situation: str,
    success: bool,
    event_id: int | str,
    *,
    attributable: bool = True,
) -> LifeState:
    """One skill outcome: confidence in (skill, situation) ±0.05, clamped to 0..1, once per
    event id. Outcomes not attributable to the skill (a stuck drawer, a snatched object) teach
    nothing and consume nothing."""
    if "|" in skill or "|" in situation:
        raise ValueError(f"'|' is reserved in skill and situation names: {skill!r}, {situation!r}")
    key = consumed_key("skill", event_id)
    if not attributable or key in state.consumed:
        return state
    old = skill_confidence(state, skill, situation)
    new = _clamp(old + (SKILL_STEP if success else -SKILL_STEP), 0.0, 1.0)
    return replace(
        state,
        skill_confidence={**state.skill_confidence, f"{skill}|{situation}": new},
        consumed=(*state.consumed, key),
    )


def _clamp(x: float, lo: float, hi: float) -> float:
    """min(max(x, lo), hi), value for value (NaN and -0.0 included), without two calls."""
    x = lo if x < lo else x  # noqa: FURB136
    return hi if x > hi else x  # noqa: FURB136
