"""Time and body: how LifeState drifts between events, in closed form (design §2, "time composes").

`advance(state, persona, t1, asleep)` (`quick.py`: written out for the hot path, checked bit for
bit against its plain composition of the helpers here) jumps from `state.last_minute` to `t1`
in one step, so an agent that sleeps or walks costs nothing until its next event, and
advance(advance(s, tm), t1) == advance(s, t1): exactly for the deficits (integer micro-units,
constant rate and clamp per interval), within 1e-9 for the exponential decays. The clock enters
only as an additive modulation of felt arousal evaluated at the state's own minute
(`arousal_level`), never integrated, so it composes too.

Numbers (design §2's table; the half-lives chosen here):
energy deficit +0.002/min awake, -0.004/min asleep; hunger deficit +0.0015/min; rest and food
candidates enter above 0.65 and leave below 0.35; a meal -0.45. Valence half-life 3 h, tonic
arousal 1 h; emotion layers: background 12 h ("a dozen hours"), momentary 20 min ("tens of
minutes"), social 4 h ("a few hours"). Sleep lowers the arousal baseline by 0.15 ("sleep lowers
it one more notch"); the clock adds ±0.10, lowest at 04:00, highest at 11:00.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

from scenarios.clock import clock_of
from scenarios.persona import Persona

from .state import EMOTIONS, LAYERS, Aftershock, LifeState, consumed_key

UNITS = 1_000_000  # deficits move in integer micro-units, so their sums compose exactly
ENERGY_AWAKE = 2_000  # +0.002 per minute awake
ENERGY_ASLEEP = -4_000  # -0.004 per minute asleep
HUNGER_RATE = 1_500  # +0.0015 per minute, awake or asleep
MEAL = 450_000  # one ordinary meal: -0.45
ENTER = 650_000  # a rest / food candidate appears above 0.65 ...
EXIT = 350_000  # ... and may be left below 0.35 (hysteresis: no flapping at one threshold)

VALENCE_HALF_LIFE = 180.0  # minutes
AROUSAL_HALF_LIFE = 60.0
LAYER_HALF_LIFE = {"background": 720.0, "momentary": 20.0, "social": 240.0}
SLEEP_AROUSAL_DROP = 0.15
CIRCADIAN_AMPLITUDE = 0.10
CIRCADIAN_TROUGH = 4 * 60  # 04:00
CIRCADIAN_PEAK = 11 * 60  # 11:00


def initial_state(persona: Persona, minute: int = 0) -> LifeState:
    """A rested, fed agent at its baselines; abilities seed skill confidence as "skill|*"."""
    return LifeState(
        last_minute=minute,
        valence=persona.baselines.valence,
        arousal=persona.baselines.arousal,
        skill_confidence={f"{skill}|*": v for skill, v in sorted(persona.abilities.items())},
    )


@lru_cache(maxsize=4096)
def factors(dt: int) -> tuple[float, float, tuple[float, ...]]:
    """The decay factors over `dt` minutes (valence, arousal, each emotion layer): the same
    numbers every time, so worked out once per interval length."""
    return (
        0.5 ** (dt / VALENCE_HALF_LIFE),
        0.5 ** (dt / AROUSAL_HALF_LIFE),
        tuple(0.5 ** (dt / LAYER_HALF_LIFE[layer]) for layer in LAYERS),
    )


def eat(state: LifeState, event_id: int | str) -> LifeState:
    """One ordinary meal: hunger deficit -0.45, once per event id ("meal:<id>")."""
    key = consumed_key("meal", event_id)
    if key in state.consumed:
        return state
    hunger0 = _units(state.hunger_deficit)
    hunger1 = _clamp_units(hunger0 - MEAL)
    return replace(
        state,
        hunger_deficit=hunger1 / UNITS,
        eating=_hysteresis(_hysteresis(state.eating, hunger0), hunger1),
        consumed=(*state.consumed, key),
    )


def wants_rest(state: LifeState) -> bool:
    """A rest candidate: since the energy deficit went above 0.65, until it falls below 0.35."""
    return state.resting


def wants_food(state: LifeState) -> bool:
    """A food candidate: since the hunger deficit went above 0.65, until it falls below 0.35."""
    return state.eating


# --- baselines and the clock ------------------------------------------------------------------
def valence_baseline(state: LifeState, persona: Persona) -> float:
    """The persona's valence baseline plus any scar."""
    return _clamp(persona.baselines.valence + state.baseline_shift.get("valence", 0.0), -1.0, 1.0)


def arousal_baseline(persona: Persona, asleep: bool) -> float:
    """Where tonic arousal drifts to: the persona's baseline, one notch lower in sleep."""
    drop = SLEEP_AROUSAL_DROP if asleep else 0.0
    return _clamp(persona.baselines.arousal - drop, 0.0, 1.0)


def emotion_baseline(state: LifeState, layer: str, emotion: str) -> float:
    """0 for every layer, except that a scar raises an emotion's background for good."""
    if layer != "background":
        return 0.0
    return _clamp(state.baseline_shift.get(emotion, 0.0), 0.0, 1.0)


def circadian(minute: int) -> float:
    """Additive arousal modulation by time of day: -0.10 at 04:00 rising to +0.10 at 11:00,
    then falling slowly back (two half-cosines, continuous at both turns)."""
    m = clock_of(minute)
    rise = CIRCADIAN_PEAK - CIRCADIAN_TROUGH  # 7 h up
    if CIRCADIAN_TROUGH <= m < CIRCADIAN_PEAK:
        return -CIRCADIAN_AMPLITUDE * math.cos(math.pi * (m - CIRCADIAN_TROUGH) / rise)
    fall = 24 * 60 - rise  # 17 h down
    return CIRCADIAN_AMPLITUDE * math.cos(math.pi * ((m - CIRCADIAN_PEAK) % (24 * 60)) / fall)


def arousal_level(state: LifeState) -> float:
    """Felt arousal: tonic arousal plus the clock at the state's minute, within 0..1."""
    return _clamp(state.arousal + circadian(state.last_minute), 0.0, 1.0)


def aftershock_level(shock: Aftershock, minute: int) -> float:
    """An aftershock's contribution at `minute`: linear from its magnitude to exactly 0 at its
    end, nothing outside [start, end)."""
    if not shock.start_minute <= minute < shock.end_minute:
        return 0.0
    span = shock.end_minute - shock.start_minute
    return shock.magnitude * (shock.end_minute - minute) / span


def emotion_level(state: LifeState, emotion: str) -> float:
    """How strongly an emotion is felt now: the strongest layer, the background carrying its
    aftershocks, within 0..1."""
    tail = (
        sum(
            aftershock_level(a, state.last_minute)
            for a in state.aftershocks
            if a.emotion == emotion
        )
        if state.aftershocks
        else 0  # what the sum of none is, without the generator
    )
    layers, i = state.emotions, EMOTIONS.index(emotion)
    return _clamp(
        max(layers["background"][i] + tail, layers["momentary"][i], layers["social"][i]),
        0.0,
        1.0,
    )


def emotion_levels(state: LifeState) -> dict[str, float]:
    """`emotion_level` of every emotion, in EMOTIONS order, the layers looked up once."""
    if state.aftershocks:
        return {e: emotion_level(state, e) for e in EMOTIONS}
    layers = state.emotions
    levels = {}
    # emotion_level without aftershocks: the tail is the sum of none, 0
    for e, b, m, s in zip(EMOTIONS, layers["background"], layers["momentary"], layers["social"]):
        x = max(b + 0, m, s)
        levels[e] = 0.0 if x < 0.0 else 1.0 if x > 1.0 else x  # noqa: FURB136
    return levels


# --- helpers ----------------------------------------------------------------------------------
def _units(value: float) -> int:
    return round(value * UNITS)


def _clamp_units(units: int) -> int:
    return min(max(units, 0), UNITS)


def _hysteresis(flag: bool, units: int) -> bool:
    if units > ENTER:
        return True
    if units < EXIT:
        return False
    return flag


def _decay(value: float, base: float, dt: int, half_life: float, lo: float, hi: float) -> float:
    """Exponential return to `base` with the given half-life (minutes)."""
    return _clamp(base + (value - base) * 0.5 ** (dt / half_life), lo, hi)


def _clamp(x: float, lo: float, hi: float) -> float:
    """min(max(x, lo), hi), value for value (NaN and -0.0 included), without two calls."""
    x = lo if x < lo else x  # noqa: FURB136
    return hi if x > hi else x  # noqa: FURB136
