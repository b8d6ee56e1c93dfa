"""LifeState: the agent's dynamic state at one minute, as one frozen, JSON-round-tripping record.

Only the independent base states are stored: the two deficits with their
hysteresis flags, valence, tonic arousal, three layers of five emotions, the permanent baseline
shift left by scars, fading aftershocks, skill confidence per skill × situation, and which
(kind of learning, event id) pairs were already consumed. Stress, uncertainty, salience and the
felt (clock-modulated) arousal are derived in `harness.life.effects` / `dynamics`, never stored.
The updaters live in `dynamics` and `appraisal`; they return new states and never mutate one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EMOTIONS = ("joy", "sadness", "fear", "anger", "disgust")
LAYERS = ("background", "momentary", "social")  # ~hours, ~tens of minutes, ~hours
SHIFTABLE = (*EMOTIONS, "valence")  # what a scar may shift: an emotion's background or valence
CALM = (0.0,) * len(EMOTIONS)  # a layer at rest: every emotion at 0 (one tuple, shared)


def neutral_emotions() -> dict[str, tuple[float, ...]]:
    """Every layer of every emotion at 0."""
    return dict.fromkeys(LAYERS, CALM)


@dataclass(frozen=True)
class Aftershock:
    """A tail on an emotion's background after a large shock: `magnitude` at `start_minute`,
    fading linearly to exactly 0 at `end_minute` (24–48 h later)."""

    emotion: str
    magnitude: float
    start_minute: int
    end_minute: int

    def __post_init__(self) -> None:
        if self.emotion not in EMOTIONS:
            raise ValueError(f"unknown emotion {self.emotion!r}")
        if not 0.0 <= self.magnitude <= 1.0 or self.end_minute <= self.start_minute:
            raise ValueError(f"bad aftershock {self!r}")


@dataclass(frozen=True)
class LifeState:
    """The dynamic state valid at `last_minute`. Dicts inside are never mutated after
    construction: every updater builds new ones. A layer's emotions are a tuple in EMOTIONS
    order (its JSON names them): the layers are what a step of time rebuilds most often."""

    last_minute: int = 0
    energy_deficit: float = 0.0  # 0 rested .. 1 exhausted
    hunger_deficit: float = 0.0  # 0 full .. 1 starving
    resting: bool = False  # wants rest: entered above 0.65, left below 0.35
    eating: bool = False  # wants food: entered above 0.65, left below 0.35
    valence: float = 0.1  # -1..1, overall good/bad feeling
    arousal: float = 0.4  # 0..1, tonic arousal; the felt level adds the time of day
    emotions: dict[str, tuple[float, ...]] = field(default_factory=neutral_emotions)
    baseline_shift: dict[str, float] = field(default_factory=dict)  # scars: SHIFTABLE → shift
    aftershocks: tuple[Aftershock, ...] = ()
    skill_confidence: dict[str, float] = field(default_factory=dict)  # "skill|situation" → 0..1
    consumed: tuple[str, ...] = ()  # "kind:event_id", each learning at most once per event

    def __post_init__(self) -> None:
        _check(0.0 <= self.energy_deficit <= 1.0, "energy_deficit", self.energy_deficit)
        _check(0.0 <= self.hunger_deficit <= 1.0, "hunger_deficit", self.hunger_deficit)
        _check(-1.0 <= self.valence <= 1.0, "valence", self.valence)
        _check(0.0 <= self.arousal <= 1.0, "arousal", self.arousal)
        _check(set(self.emotions) == set(LAYERS), "emotion layers", sorted(self.emotions))
        for layer, values in self.emotions.items():
            ok = type(values) is tuple and len(values) == len(EMOTIONS)
            _check(ok, f"emotions of {layer} (one value each of {', '.join(EMOTIONS)})", values)
            for e, v in zip(EMOTIONS, values):
                _check(0.0 <= v <= 1.0, f"{layer}.{e}", v)
        for key, v in self.baseline_shift.items():
            _check(key in SHIFTABLE and -1.0 <= v <= 1.0, f"baseline_shift[{key}]", v)
        for key, v in self.skill_confidence.items():
            _check("|" in key and 0.0 <= v <= 1.0, f"skill_confidence[{key}]", v)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data; dict keys sorted so that equal states give identical text."""
        return {
            "last_minute": self.last_minute,
            "energy_deficit": self.energy_deficit,
            "hunger_deficit": self.hunger_deficit,
            "resting": self.resting,
            "eating": self.eating,
            "valence": self.valence,
            "arousal": self.arousal,
            "emotions": {layer: dict(zip(EMOTIONS, self.emotions[layer])) for layer in LAYERS},
            "baseline_shift": dict(sorted(self.baseline_shift.items())),
            "aftershocks": [
                [a.emotion, a.magnitude, a.start_minute, a.end_minute] for a in self.aftershocks
            ],
            "skill_confidence": dict(sorted(self.skill_confidence.items())),
            "consumed": list(self.consumed),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LifeState:
        return cls(
            last_minute=int(data["last_minute"]),
            energy_deficit=float(data["energy_deficit"]),
            hunger_deficit=float(data["hunger_deficit"]),
            resting=bool(data["resting"]),
            eating=bool(data["eating"]),
            valence=float(data["valence"]),
            arousal=float(data["arousal"]),
            emotions={layer: _layer(layer, values) for layer, values in data["emotions"].items()},
            baseline_shift={k: float(v) for k, v in data["baseline_shift"].items()},
            aftershocks=tuple(
                Aftershock(str(e), float(m), int(s), int(t)) for e, m, s, t in data["aftershocks"]
            ),
            skill_confidence={k: float(v) for k, v in data["skill_confidence"].items()},
            consumed=tuple(str(c) for c in data["consumed"]),
        )


def _layer(layer: str, values: dict[str, Any]) -> tuple[float, ...]:
    """A layer's emotions from JSON (each by name) in EMOTIONS order."""
    _check(set(values) == set(EMOTIONS), f"emotions of {layer}", sorted(values))
    return tuple(float(values[e]) for e in EMOTIONS)


def consumed_key(kind: str, event_id: int | str) -> str:
    """The consumption mark for one kind of learning from one event: "kind:event_id"."""
    return f"{kind}:{event_id}"


def _check(ok: bool, what: str, value: object) -> None:
    if not ok:
        raise ValueError(f"LifeState: {what} out of range or malformed: {value!r}")
