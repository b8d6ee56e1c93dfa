"""The companion's state (layer 2 of the seven): computed, decaying, pushed by events.

Three dimensions (pleasure, arousal, connection), each the persona's baseline plus three layers
that fall back to zero with their own half-lives — background (the tone of these days),
primary (the reaction just now), social (how close the player feels) — plus a scar (an
irreversible shift of the baseline after a rare severe event) and an aftershock (a tail on the
background after a large shock that always fades within a day and a half). Pure functions:
`advance(state, t0, t1)` composes, `apply` takes one appraised event, `mixed` reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

DIMENSIONS = ("pleasure", "arousal", "connection")
LAYERS = ("background", "primary", "social")
BACKGROUND_SHARE = 0.25  # of an event's push that reaches the tone of the day
SHOCK = 0.8  # |push on pleasure| from here on leaves an aftershock
AFTERSHOCK_MINUTES = 36 * 60
SCAR = 0.05  # how far a severe event moves the baseline of connection, for good
MAX_SCARS = 3


@dataclass(frozen=True)
class Mood:
    """Deviations per layer and dimension, scars, and the aftershock (size, start)."""

    layers: dict[str, dict[str, float]] = field(
        default_factory=lambda: {la: dict.fromkeys(DIMENSIONS, 0.0) for la in LAYERS}
    )
    scars: int = 0
    aftershock: tuple[float, int] | None = None
    minute: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "layers": self.layers,
            "scars": self.scars,
            "aftershock": None if self.aftershock is None else list(self.aftershock),
            "minute": self.minute,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Mood:
        shock = data["aftershock"]
        return cls(
            {la: dict(v) for la, v in data["layers"].items()},
            int(data["scars"]),
            None if shock is None else (float(shock[0]), int(shock[1])),
            int(data["minute"]),
        )


def advance(mood: Mood, persona: Any, t1: int) -> Mood:
    """The state at `t1`: each layer decays by its half-life. Time never runs backwards."""
    if t1 < mood.minute:
        raise ValueError(f"time runs forward only: {mood.minute} → {t1}")
    dt = t1 - mood.minute
    halves = persona.half_lives
    layers = {
        la: {d: round(v * 0.5 ** (dt / getattr(halves, la)), 9) for d, v in dims.items()}
        for la, dims in mood.layers.items()
    }
    shock = mood.aftershock
    if shock is not None and t1 - shock[1] >= AFTERSHOCK_MINUTES:
        shock = None
    return replace(mood, layers=layers, aftershock=shock, minute=t1)


def apply(mood: Mood, push: dict[str, float], severe: bool = False) -> Mood:
    """One appraised event: its push on each dimension (each capped at ±0.4) reaches the
    primary layer, a quarter of it the background, connection also the social layer."""
    layers = {la: dict(v) for la, v in mood.layers.items()}
    for dim, amount in push.items():
        amount = max(-0.4, min(0.4, amount))
        layers["primary"][dim] = _clip(layers["primary"][dim] + amount)
        layers["background"][dim] = _clip(layers["background"][dim] + BACKGROUND_SHARE * amount)
        if dim == "connection":
            layers["social"][dim] = _clip(layers["social"][dim] + amount)
    shock = mood.aftershock
    if abs(push.get("pleasure", 0.0)) >= SHOCK:
        shock = (push["pleasure"] * BACKGROUND_SHARE, mood.minute)
    scars = min(MAX_SCARS, mood.scars + 1) if severe else mood.scars
    return replace(mood, layers=layers, aftershock=shock, scars=scars)


def mixed(mood: Mood, persona: Any) -> dict[str, float]:
    """Baseline (moved by scars) plus every layer and the fading aftershock, each -1..1."""
    out = {}
    for dim in DIMENSIONS:
        value = getattr(persona.baselines, dim) + sum(mood.layers[la][dim] for la in LAYERS)
        if dim == "connection":
            value -= SCAR * mood.scars
        if dim == "pleasure" and mood.aftershock is not None:
            size, start = mood.aftershock
            value += size * max(0.0, 1.0 - (mood.minute - start) / AFTERSHOCK_MINUTES)
        out[dim] = _clip(value)
    return out


def _clip(x: float) -> float:
    return round(max(-1.0, min(1.0, x)), 9)
