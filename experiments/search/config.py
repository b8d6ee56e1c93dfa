"""Search configuration: what a trial is evaluated on, and the promotion margin.

Defaults are embedded (the suite's scenarios and selection seeds), so `villagelab search`
runs with no file at all; `--config FILE` overrides any of them.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from policies import YamlSource
from scenarios import load_suite, parse_seeds
from scenarios.suite import check_seeds


class Proposer(StrEnum):
    """Who proposes the move at a plateau (`villagelab search --proposer`)."""

    RULES = "rules"  # the whitelist's declared fixes against the worst shortfall
    LLM = "llm"  # a model asked for one whitelisted change (experiments/search/model_proposal.py)


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
    suite: str | None = None  # the suite the defaults come from (None: the main suite)
    # global mode: after this many trials without a promotion, the next trial is the move
    # aimed at the champion's worst shortfall (experiments/search/diagnosis.py); 0: never
    diagnose_after: int = Field(10, ge=0, le=100_000)

    @field_validator("seeds", mode="before")
    @classmethod
    def _seeds(cls, value: object) -> object:
        return parse_seeds(value) if isinstance(value, (str, int)) else value

    @field_validator("seeds")
    @classmethod
    def _bounded(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        return check_seeds(value)


def default_config(suite: str | None = None) -> SearchConfig:
    found = load_suite(suite)
    return SearchConfig(scenarios=found.scenarios, seeds=found.seeds.selection, suite=suite)


def load_config(path: str | Path | None, suite: str | None = None) -> SearchConfig:
    """The search config: a file's values over the defaults of `suite` (or of the suite the
    file names)."""
    if path is None:
        return default_config(suite)
    source = YamlSource.load(path)
    if not isinstance(source.data, dict):
        raise source.error((), "expected a mapping with scenarios, seeds, margin, start_policy")
    named = source.data.get("suite", suite)
    base = default_config(named if isinstance(named, str) else suite).model_dump()
    return source.validate(SearchConfig, {**base, **source.data})
