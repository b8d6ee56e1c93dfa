"""The life model's hot path: `advance`, the hottest function of a village, written out.

It is dynamics' plain composition — the deficits in integer micro-units with their clamps and
hysteresis, valence, arousal and each emotion layer decayed toward its baseline, expired
aftershocks dropped — with the helpers inlined and the state's fields read once: the same
values for every input, at a fraction of the calls. tests/life/test_life_dynamics.py holds the
plain version and checks the two agree bit for bit over generated states.
"""

from __future__ import annotations

from typing import Any

from scenarios.persona import Persona

from .dynamics import (
    ENERGY_ASLEEP,
    ENERGY_AWAKE,
    ENTER,
    EXIT,
    HUNGER_RATE,
    SLEEP_AROUSAL_DROP,
    UNITS,
    emotion_baseline,
    factors,
)
from .state import CALM, EMOTIONS, LAYERS, LifeState


def unchecked(state: LifeState, **changes: Any) -> LifeState:
    """`replace(state, **changes)` without `__post_init__`'s range checks: for an updater whose
    new values are in range by construction (a clamp). Equal to `replace` in every field."""
    moved = object.__new__(LifeState)
    moved.__dict__.update(state.__dict__)
    moved.__dict__.update(changes)
    return moved


def advance(state: LifeState, persona: Persona, t1: int, asleep: bool) -> LifeState:
    """The state at minute `t1`, with nothing happening between but sleep or wakefulness."""
    last = state.last_minute
    if t1 <= last:
        if t1 < last:
            raise ValueError(f"time runs forward only: {last} → {t1}")
        return state
    dt = t1 - last
    # the state's fields read from its dict once, and dynamics' helpers written out
    # (_units, _clamp_units, _hysteresis, _decay, the baselines, _clamp, `unchecked`)
    was = state.__dict__
    energy0, hunger0 = round(was["energy_deficit"] * UNITS), round(was["hunger_deficit"] * UNITS)
    energy1 = energy0 + (ENERGY_ASLEEP if asleep else ENERGY_AWAKE) * dt
    energy1 = 0 if energy1 < 0 else UNITS if energy1 > UNITS else energy1  # noqa: FURB136
    hunger1 = hunger0 + HUNGER_RATE * dt
    hunger1 = 0 if hunger1 < 0 else UNITS if hunger1 > UNITS else hunger1  # noqa: FURB136
    resting = True if energy0 > ENTER else False if energy0 < EXIT else was["resting"]
    eating = True if hunger0 > ENTER else False if hunger0 < EXIT else was["eating"]
    shift = was["baseline_shift"]
    v_base = persona.baselines.valence + shift.get("valence", 0.0)
    v_base = -1.0 if v_base < -1.0 else 1.0 if v_base > 1.0 else v_base  # noqa: FURB136
    a_base = persona.baselines.arousal - (SLEEP_AROUSAL_DROP if asleep else 0.0)
    a_base = 0.0 if a_base < 0.0 else 1.0 if a_base > 1.0 else a_base  # noqa: FURB136
    v_factor, a_factor, layer_factors = factors(dt)
    valence = v_base + (was["valence"] - v_base) * v_factor
    arousal = a_base + (was["arousal"] - a_base) * a_factor
    layers = was["emotions"]
    emotions: dict[str, tuple[float, ...]] = {}
    if not shift:
        # every baseline 0.0: base + (v - base) × factor is 0.0 + v × factor, bit for bit,
        # and within 0..1 with v (factor ≤ 1), so no clamp is needed; a layer all at zero
        # decays to all 0.0 (never -0.0): the one shared CALM
        for layer, factor in zip(LAYERS, layer_factors):  # both three long
            values = layers[layer]
            if values is CALM or not any(values):  # most often the very one
                emotions[layer] = CALM
                continue
            # tuple(0.0 + v * factor for v in values) written out: no generator to run, two
            # to three layers a step (the tuple's order is EMOTIONS')
            joy, sadness, fear, anger, disgust = values
            emotions[layer] = (
                0.0 + joy * factor,
                0.0 + sadness * factor,
                0.0 + fear * factor,
                0.0 + anger * factor,
                0.0 + disgust * factor,
            )
    else:
        for layer, factor in zip(LAYERS, layer_factors, strict=True):
            decayed: list[float] = []
            for e, v in zip(EMOTIONS, layers[layer], strict=True):
                base = emotion_baseline(state, layer, e)
                x = base + (v - base) * factor
                # _clamp(x, 0.0, 1.0) for every float, NaN and -0.0 included, a third the cost
                decayed.append(0.0 if x < 0.0 else 1.0 if x > 1.0 else x)  # noqa: FURB136
            emotions[layer] = tuple(decayed)
    aftershocks = was["aftershocks"]
    moved = object.__new__(LifeState)  # every value below is kept in range by its clamp
    fields = moved.__dict__
    fields.update(was)
    fields["last_minute"] = t1
    fields["energy_deficit"] = energy1 / UNITS
    fields["hunger_deficit"] = hunger1 / UNITS
    # the flag is first made consistent with where the interval starts, then moved by where
    # it ends: on a monotone path that equals minute-by-minute hysteresis
    fields["resting"] = True if energy1 > ENTER else False if energy1 < EXIT else resting
    fields["eating"] = True if hunger1 > ENTER else False if hunger1 < EXIT else eating
    fields["valence"] = -1.0 if valence < -1.0 else 1.0 if valence > 1.0 else valence  # noqa: FURB136
    fields["arousal"] = 0.0 if arousal < 0.0 else 1.0 if arousal > 1.0 else arousal  # noqa: FURB136
    fields["emotions"] = emotions
    fields["aftershocks"] = (
        tuple(a for a in aftershocks if a.end_minute > t1) if aftershocks else ()
    )
    return moved
