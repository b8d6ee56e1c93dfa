"""The definition's rules applied to metric values: the objective and the guardrails.

Shared by `score` and `compare`, so a comparison recomputes exactly the objective a scorecard
reports.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import fmean

from .definition import ScorecardDefinition
from .metrics import METRICS

SeedValues = Mapping[int, float]
ScenarioValues = Mapping[str, Mapping[str, SeedValues]]
"""Metric values by scenario, then metric, then seed; a missing entry means absent."""


@dataclass(frozen=True)
class GuardrailResult:
    """A guardrail's verdict; not applicable (value None, ok) when its metric is absent."""

    value: float | None
    limit: float
    ok: bool
    applicable: bool


def normalised(metric: str, value: float) -> float:
    """A metric value on [0, 1] by its range, higher better whatever its direction."""
    m = METRICS[metric]
    lo, hi = m.range
    return (value - lo) / (hi - lo) if m.direction == "max" else (hi - value) / (hi - lo)


def instance_objective(
    values: Mapping[str, float], definition: ScorecardDefinition
) -> float | None:
    """Weighted mean of the normalised metrics present in one (scenario, seed); None if none."""
    weighted = [
        (definition.weights[m], normalised(m, v))
        for m, v in values.items()
        if definition.weights.get(m, 0.0) > 0
    ]
    if not weighted:
        return None
    return math.fsum(w * x for w, x in weighted) / math.fsum(w for w, _ in weighted)


def objectives(
    values: ScenarioValues, definition: ScorecardDefinition
) -> dict[tuple[str, int], float]:
    """The objective of every (scenario, seed) with at least one weighted metric present."""
    out: dict[tuple[str, int], float] = {}
    for scenario in sorted(values):
        seeds = sorted({s for per_seed in values[scenario].values() for s in per_seed})
        for seed in seeds:
            present = {
                m: per_seed[seed] for m, per_seed in values[scenario].items() if seed in per_seed
            }
            value = instance_objective(present, definition)
            if value is not None:
                out[scenario, seed] = value
    return out


def per_seed_mean(instances: Mapping[tuple[str, int], float]) -> dict[int, float]:
    """Mean over scenarios for each seed (exact, so independent of order)."""
    by_seed: dict[int, list[float]] = {}
    for (_, seed), value in instances.items():
        by_seed.setdefault(seed, []).append(value)
    return {seed: fmean(by_seed[seed]) for seed in sorted(by_seed)}


def check_guardrails(
    scenario_means: Mapping[str, Mapping[str, float]], definition: ScorecardDefinition
) -> dict[str, GuardrailResult]:
    """Each guardrail on the worst per-scenario mean of its metric, over the scenarios it
    covers; not applicable where none of them measured it."""
    out: dict[str, GuardrailResult] = {}
    for g in definition.guardrails:
        means = [m[g.metric] for s, m in scenario_means.items() if g.covers(s) and g.metric in m]
        if not means:
            out[g.key] = GuardrailResult(None, g.limit, ok=True, applicable=False)
            continue
        value = g.worst(means)
        out[g.key] = GuardrailResult(value, g.limit, ok=g.holds(value), applicable=True)
    return out
