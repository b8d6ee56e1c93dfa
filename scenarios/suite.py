"""The suite: which scenarios make up the instrument, and its disjoint seed sets (design §3)."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from villagelab.yamlsource import InputError, YamlSource

SUITE_PATH = Path(__file__).with_name("suite.yaml")
# named suites (`--suite NAME`): the village suite, characters who talk with people outside
# the simulation (companion and support desk), people who hand work to each other, and
# researchers who read and cite sources
SUITES = {
    "main": SUITE_PATH,
    "companion": Path(__file__).with_name("companion.yaml"),
    "workflow": Path(__file__).with_name("workflow.yaml"),
    "research": Path(__file__).with_name("research.yaml"),
}
_RANGE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")


MAX_SEEDS = 10_000  # seeds in one set: each is an episode per scenario
MAX_SEED = 2**62  # a seed is an int64 column in every trace table


def parse_seeds(text: str | int) -> tuple[int, ...]:
    """'0-4' → (0, 1, 2, 3, 4); '1,5,9' → (1, 5, 9); 7 → (7,). At most MAX_SEEDS seeds,
    each from 0 to MAX_SEED (counted before any range is expanded)."""
    if isinstance(text, int):
        if not 0 <= text <= MAX_SEED:
            raise ValueError(f"a seed from 0 to {MAX_SEED}, got {text}")
        return (text,)
    parts = str(text).split(",")
    bounds: list[tuple[int, int]] = []
    for part in parts:
        m = _RANGE.match(part)
        if m and len(m[1]) <= 19 and len(m[2]) <= 19:
            lo, hi = int(m[1]), int(m[2])
            if hi < lo:
                raise ValueError(f"seed range {part.strip()!r} runs backwards")
        elif part.strip().isdigit() and len(part.strip()) <= 19:
            lo = hi = int(part)
        else:
            raise ValueError(f"expected seeds like '0-4' or '1,5,9', got {_cut(text)!r}")
        if hi > MAX_SEED:
            raise ValueError(f"seeds from 0 to {MAX_SEED}, got {part.strip()!r}")
        bounds.append((lo, hi))
    count = sum(hi - lo + 1 for lo, hi in bounds)
    if count > MAX_SEEDS:
        raise ValueError(
            f"seeds {_cut(text)!r} name {count:,} seeds; expected at most {MAX_SEEDS:,}"
        )
    return check_seeds(tuple(seed for lo, hi in bounds for seed in range(lo, hi + 1)), text)


def check_seeds(seeds: tuple[int, ...], text: object = None) -> tuple[int, ...]:
    """Seeds as a set of episodes needs them: at most MAX_SEEDS, each in range, no repeats."""
    shown = _cut(seeds if text is None else text)
    if len(seeds) > MAX_SEEDS:
        raise ValueError(f"{len(seeds):,} seeds; expected at most {MAX_SEEDS:,}")
    if any(not 0 <= seed <= MAX_SEED for seed in seeds):
        raise ValueError(f"seeds from 0 to {MAX_SEED}, got {shown!r}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds {shown!r} repeat a seed")
    return seeds


class SeedSets(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    selection: tuple[int, ...]
    # confirmation seeds are drawn fresh from here upwards
    confirmation_start: int = Field(ge=0, le=MAX_SEED - 1_000_000)
    gate: tuple[int, ...]
    test: tuple[int, ...]

    @field_validator("selection", "gate", "test", mode="before")
    @classmethod
    def _seeds(cls, value: object) -> object:
        return parse_seeds(value) if isinstance(value, (str, int)) else value

    @field_validator("selection", "gate", "test")
    @classmethod
    def _bounded(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if not value:
            raise ValueError("at least one seed")
        return check_seeds(value)

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
    scenarios: tuple[str, ...] = Field(min_length=1, max_length=100)
    seeds: SeedSets
    # whitelisted parameters no scenario of the suite scores (its agents read them, yet no
    # metric moves): a search on the suite's scenarios leaves them at the champion's values
    unscored: tuple[str, ...] = ()


def suite_path(name_or_path: str | Path | None) -> Path:
    """A suite by name (main, companion, workflow, research) or by the path of its file; None:
    the main suite."""
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
    if not isinstance(source.data, dict):
        raise source.error((), "expected a mapping with scenarios and seeds")
    return source.validate(Suite)


def _cut(text: object) -> str:
    text = str(text)
    return text if len(text) <= 40 else text[:40] + "…"


__all__ = [
    "MAX_SEEDS",
    "SUITES",
    "SUITE_PATH",
    "InputError",
    "SeedSets",
    "Suite",
    "check_seeds",
    "load_suite",
    "parse_seeds",
    "suite_path",
]
