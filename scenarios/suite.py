"""The suite: which scenarios make up the instrument, and its disjoint seed sets (DESIGN §3)."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from villagelab.yamlsource import InputError, YamlSource

SUITE_PATH = Path(__file__).with_name("suite.yaml")
# named suites (`--suite NAME`): the village suite, and characters who talk with people
# outside the simulation (companion and support desk)
SUITES = {"main": SUITE_PATH, "companion": Path(__file__).with_name("companion.yaml")}
_RANGE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")


def parse_seeds(text: str | int) -> tuple[int, ...]:
    """'0-4' → (0, 1, 2, 3, 4); '1,5,9' → (1, 5, 9); 7 → (7,)."""
    if isinstance(text, int):
        return (text,)
    seeds: list[int] = []
    for part in str(text).split(","):
        m = _RANGE.match(part)
        if m:
            lo, hi = int(m[1]), int(m[2])
            if hi < lo:
                raise ValueError(f"seed range {part.strip()!r} runs backwards")
            seeds.extend(range(lo, hi + 1))
        elif part.strip().isdigit():
            seeds.append(int(part))
        else:
            raise ValueError(f"expected seeds like '0-4' or '1,5,9', got {text!r}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds {text!r} repeat a seed")
    return tuple(seeds)


class SeedSets(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    selection: tuple[int, ...]
    confirmation_start: int  # confirmation seeds are drawn fresh from here upwards
    gate: tuple[int, ...]
    test: tuple[int, ...]

    @field_validator("selection", "gate", "test", mode="before")
    @classmethod
    def _seeds(cls, value: object) -> object:
        return parse_seeds(value) if isinstance(value, (str, int)) else value

    @model_validator(mode="after")
    def _disjoint(self) -> SeedSets:
        fixed = {"selection": self.selection, "gate": self.gate, "test": self.test}
        names = list(fixed)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                shared = set(fixed[a]) & set(fixed[b])
                if shared:
                    raise ValueError(f"seed sets {a} and {b} share seeds {sorted(shared)}")
            if max(fixed[a]) >= self.confirmation_start:
                raise ValueError(
                    f"{a} seeds reach the confirmation stream (from {self.confirmation_start})"
                )
        return self


class Suite(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    scenarios: tuple[str, ...]
    seeds: SeedSets


def suite_path(name_or_path: str | Path | None) -> Path:
    """A suite by name (main, companion) or by the path of its file; None: the main suite."""
    if name_or_path is None:
        return SUITE_PATH
    text = str(name_or_path)
    if text in SUITES:
        return SUITES[text]
    if text.endswith((".yaml", ".yml")):
        return Path(text)
    raise InputError(f"unknown suite {text!r}; expected one of {', '.join(SUITES)} or a .yaml file")


def load_suite(path: str | Path | None = SUITE_PATH) -> Suite:
    source = YamlSource.load(suite_path(path))
    try:
        return Suite.model_validate(source.data)
    except ValidationError as exc:
        raise source.errors_from(exc) from None


__all__ = [
    "SUITES",
    "SUITE_PATH",
    "InputError",
    "SeedSets",
    "Suite",
    "load_suite",
    "parse_seeds",
    "suite_path",
]
