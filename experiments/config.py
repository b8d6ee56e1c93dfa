"""Search configuration: what a trial is evaluated on, and the promotion margin.

Defaults are embedded (the suite's scenarios and selection seeds), so `villagelab search`
runs with no file at all; `--config FILE` overrides any of them.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from policies import YamlSource
from scenarios import load_suite, parse_seeds
from scenarios.suite import check_seeds


class SearchConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    scenarios: tuple[str, ...] = Field(min_length=1, max_length=100)
    seeds: tuple[int, ...] = Field(min_length=1)
    margin: float = Field(0.0, ge=0.0, le=1.0)  # objective gain a promotion needs over the champion
    start_policy: str | None = None  # the first champion; default policies/baseline.yaml
    confirmation_seeds: int = Field(5, ge=2, le=100)  # fresh seeds to confirm a promotion
    local_step: float = Field(0.15, gt=0.0, le=1.0)  # local mode: ± this share of each range
    local_flips: int = Field(2, ge=0, le=20)  # local mode: bools/categories changed at most
    first: tuple[str, ...] = Field(
        (), max_length=100
    )  # policy files tried first, in order (global mode)

    @field_validator("seeds", mode="before")
    @classmethod
    def _seeds(cls, value: object) -> object:
        return parse_seeds(value) if isinstance(value, (str, int)) else value

    @field_validator("seeds")
    @classmethod
    def _bounded(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        return check_seeds(value)


def default_config() -> SearchConfig:
    suite = load_suite()
    return SearchConfig(scenarios=suite.scenarios, seeds=suite.seeds.selection)


def load_config(path: str | Path | None) -> SearchConfig:
    if path is None:
        return default_config()
    source = YamlSource.load(path)
    if not isinstance(source.data, dict):
        raise source.error((), "expected a mapping with scenarios, seeds, margin, start_policy")
    base = default_config().model_dump()
    return source.validate(SearchConfig, {**base, **source.data})
