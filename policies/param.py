"""One whitelisted parameter: its name, type, range, default and meaning, whom it acts for,
the switch it acts under, and what it is meant to fix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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

    def allowed(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "categorical":
            return "one of " + ", ".join(self.choices)
        return f"a{'n integer' if self.kind == 'int' else ' number'} from {self.low:g} to {self.high:g}"
