"""One whitelisted parameter: its name, type, range, default and meaning, whom it acts for,
the switch it acts under, and what it is meant to fix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .purposes import VILLAGE, Role, Shortfall

Kind = Literal["bool", "int", "float", "categorical"]


@dataclass(frozen=True)
class Param:
    name: str  # dotted: family.parameter
    kind: Kind
    default: bool | int | float | str
    meaning: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    # a number's grid: a search samples low, low + grid, ... high (an int's is 1), so that
    # two proposals a hair apart are one policy, run once
    grid: float | None = None
    acts_for: frozenset[Role] = VILLAGE
    # the bool switch this parameter acts under: sampled only while the switch is on
    requires: str | None = None
    # the failure modes it is meant to fix, each with the way it moves to fix it
    fixes: tuple[tuple[Shortfall, bool], ...] = ()

    def __post_init__(self) -> None:
        if self.kind == "float":
            assert self.low is not None and self.high is not None and self.grid, self.name
            cells = (self.high - self.low) / self.grid
            assert abs(cells - round(cells)) < 1e-9, f"{self.name}: grid does not divide range"

    @property
    def spacing(self) -> float:
        """The distance between two neighbouring values a search may sample."""
        return 1.0 if self.kind == "int" else float(self.grid or 0.0)

    def on_grid(self, value: float) -> float:
        """`value` moved to the nearest grid point within the range (an int: rounded)."""
        assert self.low is not None and self.high is not None, self.name
        cells = round((value - self.low) / self.spacing)
        snapped = min(self.high, max(self.low, self.low + cells * self.spacing))
        return round(snapped) if self.kind == "int" else round(snapped, 10)

    @property
    def family(self) -> str:
        return self.name.split(".", 1)[0]

    def to_json(self) -> dict[str, Any]:
        """As plain data (an agent's declaration crosses the process boundary so)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "meaning": self.meaning,
            "low": self.low,
            "high": self.high,
            "choices": list(self.choices),
            "grid": self.grid,
            "acts_for": sorted(r.value for r in self.acts_for),
            "requires": self.requires,
            "fixes": [[shortfall.value, way] for shortfall, way in self.fixes],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Param:
        return cls(
            data["name"],
            data["kind"],
            data["default"],
            data["meaning"],
            data["low"],
            data["high"],
            tuple(data["choices"]),
            data["grid"],
            frozenset(Role(r) for r in data["acts_for"]),
            data["requires"],
            tuple((Shortfall(f), bool(way)) for f, way in data["fixes"]),
        )

    def admits(self, value: object) -> bool:
        """Whether `value` is of this parameter's kind and within its range or choices."""
        ok = {
            "bool": isinstance(value, bool),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "float": isinstance(value, (int, float)) and not isinstance(value, bool),
            "categorical": value in self.choices,
        }[self.kind]
        if ok and self.low is not None:
            ok = self.low <= value <= self.high  # type: ignore[operator]
        return ok

    def allowed(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "categorical":
            return "one of " + ", ".join(self.choices)
        return f"a{'n integer' if self.kind == 'int' else ' number'} from {self.low:g} to {self.high:g}"
