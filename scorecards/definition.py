"""The scorecard definition: which metrics, their objective weights and tolerances, guardrails.

It is part of the instrument (what measures), so it is a file (`default.yaml`) validated into a
frozen value. Schema errors and cross-reference errors (a metric that is not registered, a
weight for a metric the scorecard does not list) name the file, the line, the key and what was
expected.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from villagelab.yamlsource import InputError, Location, YamlSource, format_location

from .metrics import METRICS
from .metrics._base import self_reported_table

DEFAULT_PATH = Path(__file__).with_name("default.yaml")

_DEFERRED = "scorecards.defer_cross_checks"  # the loader checks cross-references itself
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class ScorecardDefinitionError(InputError):
    """A scorecard definition is wrong; the message names file, line, key and expectation."""


class Guardrail(BaseModel):
    """A hard limit on a metric's worst per-scenario mean: `metric op limit` must hold, over
    every scenario or only the ones named (a floor that only some scenarios call for)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    metric: str
    op: Literal[">=", "<="]
    limit: Annotated[float, Field(allow_inf_nan=False)]
    name: str | None = None  # the key in reports; defaults to the metric's name
    scenarios: tuple[Annotated[str, Field(min_length=1)], ...] | None = Field(
        default=None, min_length=1
    )

    def covers(self, scenario: str) -> bool:
        return self.scenarios is None or scenario in self.scenarios

    @property
    def key(self) -> str:
        return self.name or self.metric

    def holds(self, value: float) -> bool:
        return value >= self.limit if self.op == ">=" else value <= self.limit

    def worst(self, values: list[float]) -> float:
        """The value that matters for this limit: the lowest for '>=', the highest for '<='."""
        return min(values) if self.op == ">=" else max(values)


class ScorecardDefinition(BaseModel):
    """Metrics scored, objective weight and regression tolerance of each, and guardrails."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    metrics: tuple[str, ...] = Field(min_length=1)
    weights: dict[str, NonNegative]
    tolerances: dict[str, NonNegative]
    guardrails: tuple[Guardrail, ...] = ()
    # the metrics a search's promotion holds to their tolerances whatever the objective gains
    # (None: every metric); the others are traded by the objective and bounded by guardrails
    held: tuple[str, ...] | None = None

    @model_validator(mode="after")
    def _cross_checked(self, info: ValidationInfo) -> ScorecardDefinition:
        if not (info.context or {}).get(_DEFERRED):
            problems = [f"at {format_location(w)}: {what}" for w, what in cross_problems(self)]
            if problems:
                raise ValueError("; ".join(problems))
        return self

    def weight(self, metric: str) -> float:
        return self.weights[metric]

    def tolerance(self, metric: str) -> float:
        return self.tolerances[metric]

    def holds(self, metric: str) -> bool:
        """Whether a promotion refuses a loss of `metric` beyond its tolerance, whatever the
        objective gains (the gate refuses every such loss)."""
        return self.held is None or metric in self.held


def cross_problems(d: ScorecardDefinition) -> Iterator[tuple[Location, str]]:
    """Yield (path, expectation) for each reference the registry or the file does not back."""
    known = ", ".join(sorted(METRICS))
    listed = ", ".join(d.metrics)
    for i, name in enumerate(d.metrics):
        if name not in METRICS:
            yield ("metrics", i), f"unknown metric {name!r}; expected one of {known}"
        elif name in d.metrics[:i]:
            yield ("metrics", i), f"metric {name!r} listed twice; expected each once"
    for table in ("weights", "tolerances"):
        given: dict[str, float] = getattr(d, table)
        for name in given:
            if name not in d.metrics:
                yield (table, name), f"{name!r} is not a listed metric; expected one of {listed}"
        for name in d.metrics:
            if name not in given:
                yield (table,), f"no entry for metric {name!r}; expected a number >= 0 for each"
    if d.weights and not any(d.weights.values()):
        yield ("weights",), "all weights are 0; expected at least one positive weight"
    for name, w in d.weights.items():
        if w > 0 and name in METRICS and not METRICS[name].bounded:
            yield ("weights", name), f"{name!r} has an unbounded range; expected weight 0"
        elif w > 0 and name in METRICS and METRICS[name].self_reported:
            tables = ", ".join(t for t in METRICS[name].reads if self_reported_table(t))
            problem = (
                f"{name!r} reads what agents report about themselves ({tables}), which is no "
                "evidence; expected weight 0"
            )
            yield ("weights", name), problem
        elif w > 0 and name in METRICS and METRICS[name].internal:
            yield ("weights", name), f"{name!r} is an internal diagnostic; expected weight 0"
    held = d.held or ()
    for i, name in enumerate(held):
        if name not in d.metrics:
            yield ("held", i), f"{name!r} is not a listed metric; expected one of {listed}"
        elif name in held[:i]:
            yield ("held", i), f"metric {name!r} listed twice; expected each once"
        elif METRICS[name].self_reported:
            problem = (
                f"{name!r} reads what agents report about themselves, which is no evidence; "
                "expected only metrics of observable behaviour"
            )
            yield ("held", i), problem
    keys: list[str] = []
    for i, g in enumerate(d.guardrails):
        if g.metric not in d.metrics:
            yield (
                ("guardrails", i, "metric"),
                (f"{g.metric!r} is not a listed metric; expected one of {listed}"),
            )
        elif METRICS[g.metric].self_reported:
            tables = ", ".join(t for t in METRICS[g.metric].reads if self_reported_table(t))
            problem = (
                f"{g.metric!r} reads what agents report about themselves ({tables}): an agent "
                "that reports nothing would pass; expected a guardrail on observable behaviour"
            )
            yield ("guardrails", i, "metric"), problem
        if g.key in keys:
            yield ("guardrails", i), f"guardrail {g.key!r} appears twice; expected unique names"
        if g.scenarios is not None and len(set(g.scenarios)) != len(g.scenarios):
            yield ("guardrails", i, "scenarios"), "a scenario named twice; expected each once"
        keys.append(g.key)


def load_definition(path: str | Path | None = None) -> ScorecardDefinition:
    """Read and validate a scorecard definition file (the packaged default when no path)."""
    try:
        source = YamlSource.load(DEFAULT_PATH if path is None else path)
        return _validated(source)
    except ScorecardDefinitionError:
        raise
    except InputError as exc:
        raise ScorecardDefinitionError(str(exc)) from None


def _validated(source: YamlSource) -> ScorecardDefinition:
    if not isinstance(source.data, dict):
        raise source.error((), "expected a mapping with metrics, weights, tolerances, guardrails")
    definition = source.validate(ScorecardDefinition, context={_DEFERRED: True})
    problems = [str(source.error(where, what)) for where, what in cross_problems(definition)]
    if problems:
        raise ScorecardDefinitionError("\n".join(problems))
    return definition
