"""The scorecard of one policy: every metric with its interval, the guardrails, the objective.

Scores trace tables of any number of episodes; the result depends only on the traces'
content, never on row, scenario or seed order. Its JSON form is the contract of design §9.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from villagelab.files import atomic_write_bytes

from ._episodes import split_episodes
from ._rules import GuardrailResult, check_guardrails, objectives, per_seed_mean
from .definition import ScorecardDefinition
from .metrics import METRICS, Direction
from .stats import mean_ci

HASH_KEYS = ("harness", "instrument", "policy")


@dataclass(frozen=True)
class MetricSummary:
    """One metric over seeds: mean, confidence interval, and the value of each seed."""

    mean: float
    ci_low: float
    ci_high: float
    per_seed: dict[int, float]
    direction: Direction

    @classmethod
    def of(
        cls,
        per_seed: Mapping[int, float],
        direction: Direction,
        bounds: tuple[float, float] | None = None,
    ) -> MetricSummary:
        ci = mean_ci(per_seed.values(), bounds=bounds)
        seeds = {s: float(per_seed[s]) for s in sorted(per_seed)}
        return cls(ci.mean, ci.ci_low, ci.ci_high, seeds, direction)

    def to_json(self) -> dict[str, Any]:
        return {
            "mean": self.mean,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "per_seed": {str(s): v for s, v in self.per_seed.items()},
            "direction": self.direction,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MetricSummary:
        per_seed = {int(s): float(v) for s, v in data["per_seed"].items()}
        return cls(
            float(data["mean"]),
            float(data["ci_low"]),
            float(data["ci_high"]),
            per_seed,
            data["direction"],
        )


@dataclass(frozen=True)
class Scorecard:
    """Objective (None if nothing weighted was present), metrics overall and per scenario."""

    objective: float | None
    objective_ci: tuple[float, float] | None
    objective_per_seed: dict[int, float]
    metrics: dict[str, MetricSummary]
    scenarios: dict[str, dict[str, MetricSummary]]
    guardrails: dict[str, GuardrailResult]
    harness: str
    instrument: str
    policy: str
    # (scenario, seed, status) of episodes that did not finish: each counts 0 in the
    # objective (a crash is a result, and the worst one), so stopping where one does badly
    # never raises it
    not_ok: tuple[tuple[str, int, str], ...] = ()

    @property
    def guardrails_ok(self) -> bool:
        return all(g.ok for g in self.guardrails.values())

    def to_json(self) -> dict[str, Any]:
        """The scorecard as plain JSON data; raises if any number is not finite."""
        out = {
            "objective": self.objective,
            "objective_ci": None if self.objective_ci is None else list(self.objective_ci),
            "objective_per_seed": {str(s): v for s, v in self.objective_per_seed.items()},
            "metrics": {name: m.to_json() for name, m in self.metrics.items()},
            "scenarios": {
                sc: {name: m.to_json() for name, m in ms.items()}
                for sc, ms in self.scenarios.items()
            },
            "guardrails": {
                name: {"value": g.value, "limit": g.limit, "ok": g.ok, "applicable": g.applicable}
                for name, g in self.guardrails.items()
            },
            **{key: getattr(self, key) for key in HASH_KEYS},
            "episodes_not_ok": [
                {"scenario": sc, "seed": seed, "status": status} for sc, seed, status in self.not_ok
            ],
        }
        _require_finite(out, "scorecard")
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Scorecard:
        """Rebuild a scorecard from `to_json()` output (seed keys back to ints)."""
        try:
            ci = data["objective_ci"]
            return cls(
                objective=None if data["objective"] is None else float(data["objective"]),
                objective_ci=None if ci is None else (float(ci[0]), float(ci[1])),
                objective_per_seed={
                    int(s): float(v) for s, v in data["objective_per_seed"].items()
                },
                metrics={n: MetricSummary.from_json(m) for n, m in data["metrics"].items()},
                scenarios={
                    sc: {n: MetricSummary.from_json(m) for n, m in ms.items()}
                    for sc, ms in data["scenarios"].items()
                },
                guardrails={
                    n: GuardrailResult(
                        None if g["value"] is None else float(g["value"]),
                        float(g["limit"]),
                        bool(g["ok"]),
                        bool(g.get("applicable", g["value"] is not None)),
                    )
                    for n, g in data["guardrails"].items()
                },
                **{key: str(data[key]) for key in HASH_KEYS},
                not_ok=tuple(
                    (str(e["scenario"]), int(e["seed"]), str(e["status"]))
                    for e in data.get("episodes_not_ok", ())
                ),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"not a scorecard JSON document: {exc!r}") from None

    def write_json(self, path: str | Path) -> None:
        """Write the JSON atomically (hidden temp file in the same folder, fsync, rename)."""
        text = json.dumps(self.to_json(), indent=2, allow_nan=False)
        atomic_write_bytes(path, (text + "\n").encode())


def score(
    traces: Mapping[str, pd.DataFrame],
    definition: ScorecardDefinition,
    *,
    hashes: Mapping[str, str],
    applicable: Mapping[str, Collection[str]] | None = None,
) -> Scorecard:
    """Score every (scenario, seed) episode in `traces` (table name → DataFrame).

    `applicable` maps each scenario to the metrics it declares (its `metrics:` list); given,
    a metric a scenario does not declare is absent for it, and every scenario in the traces
    must be in the mapping. Not given, every metric of the definition is scored everywhere.
    """
    missing = [k for k in HASH_KEYS if k not in hashes]
    if missing:
        raise ValueError(f"score: hashes lacks {missing}; expected {list(HASH_KEYS)}")
    return assemble(measure(traces, definition, applicable), definition, hashes=hashes)


Values = dict[str, dict[str, dict[int, float]]]  # scenario → metric → seed → value


def measure(
    traces: Mapping[str, pd.DataFrame] | Mapping[str, pa.Table],
    definition: ScorecardDefinition,
    applicable: Mapping[str, Collection[str]] | None = None,
) -> Values:
    """Every metric's value per (scenario, seed) episode: what `assemble` summarises.

    Episodes are independent, so values measured apart (as episodes finish) merge with
    `merge_values` into exactly what one call over all their traces gives. Arrow tables are
    measured as they are (the common metrics read columns, not DataFrames): the same values
    as their DataFrames give, at a fraction of the cost.
    """
    episodes = split_episodes(traces)
    if not episodes:
        raise ValueError("score: the traces hold no episode")
    metrics = _metrics_by_scenario(definition, {sc for sc, _ in episodes}, applicable)
    values: Values = {}
    for (scenario, seed), episode in episodes.items():
        per_metric = values.setdefault(scenario, {})
        for name in metrics[scenario]:
            value = METRICS[name].evaluate(episode)
            if value is not None:
                per_metric.setdefault(name, {})[seed] = value
    return values


def merge_values(parts: Iterable[Values]) -> Values:
    merged: Values = {}
    for part in parts:
        for scenario, per_metric in part.items():
            into = merged.setdefault(scenario, {})
            for name, per_seed in per_metric.items():
                into.setdefault(name, {}).update(per_seed)
    return merged


def instance_objective(values: Values, definition: ScorecardDefinition) -> float | None:
    """The objective of one (scenario, seed) instance's values (None if nothing weighted)."""
    found = objectives(values, definition)
    return None if not found else next(iter(found.values()))


def assemble(
    values: Values,
    definition: ScorecardDefinition,
    *,
    hashes: Mapping[str, str],
    not_ok: Collection[tuple[str, int, str]] = (),
) -> Scorecard:
    """The scorecard of measured values: summaries, intervals, objective, guardrails; an
    episode that did not finish (`not_ok`: scenario, seed, status) counts 0 in the
    objective."""
    if not values:
        raise ValueError("score: the traces hold no episode")

    def summary(name: str, per_seed: Mapping[int, float]) -> MetricSummary:
        return MetricSummary.of(per_seed, METRICS[name].direction, METRICS[name].range)

    scenarios = {
        sc: {n: summary(n, per_metric[n]) for n in definition.metrics if n in per_metric}
        for sc, per_metric in sorted(values.items())
    }
    overall: dict[str, MetricSummary] = {}
    for name in definition.metrics:
        instances = {
            (sc, seed): v
            for sc, per_metric in values.items()
            for seed, v in per_metric.get(name, {}).items()
        }
        if instances:
            overall[name] = summary(name, per_seed_mean(instances))
    failed = {(sc, seed): 0.0 for sc, seed, _ in not_ok}
    objective_per_seed = per_seed_mean({**objectives(values, definition), **failed})
    objective = (
        mean_ci(objective_per_seed.values(), bounds=(0.0, 1.0)) if objective_per_seed else None
    )
    means = {sc: {n: m.mean for n, m in ms.items()} for sc, ms in scenarios.items()}
    return Scorecard(
        objective=None if objective is None else objective.mean,
        objective_ci=None if objective is None else (objective.ci_low, objective.ci_high),
        objective_per_seed=objective_per_seed,
        metrics=overall,
        scenarios=scenarios,
        guardrails=check_guardrails(means, definition),
        **{key: hashes[key] for key in HASH_KEYS},
        not_ok=tuple(sorted(not_ok)),
    )


def _metrics_by_scenario(
    definition: ScorecardDefinition,
    scenarios: Collection[str],
    applicable: Mapping[str, Collection[str]] | None,
) -> dict[str, tuple[str, ...]]:
    """The definition's metrics each scenario is scored on, in the definition's order."""
    if applicable is None:
        return dict.fromkeys(scenarios, definition.metrics)
    unknown = sorted(set(scenarios) - set(applicable))
    if unknown:
        raise ValueError(f"score: applicable lacks the scenarios {unknown} found in the traces")
    return {
        sc: tuple(m for m in definition.metrics if m in set(applicable[sc])) for sc in scenarios
    }


def _require_finite(value: Any, where: str) -> None:
    """Raise if a NaN or infinity hides anywhere in JSON-bound data."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} is {value!r}; a scorecard holds finite numbers only")
    if isinstance(value, Mapping):
        for k, v in value.items():
            _require_finite(v, f"{where}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _require_finite(v, f"{where}[{i}]")
