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
    acts_for: frozenset[Role] = VILLAGE
    # the bool switch this parameter acts under: sampled only while the switch is on
    requires: str | None = None
    # the failure modes it is meant to fix, each with the way it moves to fix it
    fixes: tuple[tuple[Shortfall, bool], ...] = ()

    @property
    def family(self) -> str:
        return self.name.split(".", 1)[0]

    def allowed(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "categorical":
            return "one of " + ", ".join(self.choices)
        return f"a{'n integer' if self.kind == 'int' else ' number'} from {self.low:g} to {self.high:g}"
