"""Paired comparison of a candidate scorecard with a reference (design §5, §7).

Pairs only what both measured: the same (scenario, seed) instances. The objective is recomputed
per instance from the per-scenario metric values with the definition's weights, so both sides
are judged on exactly the same instances.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ._rules import GuardrailResult, check_guardrails, objectives, per_seed_mean
from .definition import ScorecardDefinition
from .metrics import METRICS, Direction
from .scorecard import Scorecard
from .stats import Interval, paired_diff


@dataclass(frozen=True)
class MetricDiff:
    """Candidate - reference for one metric in one scenario, paired on common seeds.

    `regressed`: worse beyond the tolerance under the comparison's rule (see `regressed`).
    """

    scenario: str
    metric: str
    direction: Direction
    tolerance: float
    diff: Interval
    regressed: bool


@dataclass(frozen=True)
class Comparison:
    """The paired verdict. `improves`: objective difference mean > margin."""

    objective_diff: Interval
    metrics: tuple[MetricDiff, ...]
    guardrails: dict[str, GuardrailResult]  # the candidate's, under the given definition
    margin: float
    rule: Rule = "sure"  # how `regressed` was decided (see `regressed`)

    @property
    def improves(self) -> bool:
        return self.objective_diff.mean > self.margin

    @property
    def guardrails_ok(self) -> bool:
        return all(g.ok for g in self.guardrails.values())

    @property
    def guardrail_breaks(self) -> list[str]:
        return [name for name, g in self.guardrails.items() if not g.ok]

    @property
    def regressions(self) -> list[MetricDiff]:
        return [d for d in self.metrics if d.regressed]

    def to_json(self) -> dict[str, Any]:
        d = self.objective_diff
        return {
            "objective_diff": {"mean": d.mean, "ci_low": d.ci_low, "ci_high": d.ci_high, "n": d.n},
            "margin": self.margin,
            "rule": self.rule,
            "improves": self.improves,
            "guardrails_ok": self.guardrails_ok,
            "guardrail_breaks": self.guardrail_breaks,
            "regressions": [
                {
                    "scenario": r.scenario,
                    "metric": r.metric,
                    "mean": r.diff.mean,
                    "ci_low": r.diff.ci_low,
                    "ci_high": r.diff.ci_high,
                    "tolerance": r.tolerance,
                }
                for r in self.regressions
            ],
        }


Rule = Literal["sure", "likely"]


def regressed(direction: Direction, diff: Interval, tolerance: float, rule: Rule = "sure") -> bool:
    """Whether a paired difference counts as worse beyond the tolerance.

    `sure` (the gate's test, before Holm's correction): the whole interval lies beyond the
    tolerance on the bad side — a false alarm in CI costs a developer's afternoon.
    `likely` (a promotion's): the mean lies beyond the tolerance and the whole interval on
    the bad side of zero — worse for certain, and by more than the tolerance on average. A
    promotion that lets such a loss through cannot be undone by the next one, so a
    promotion is held to the stricter reading.
    """
    sign = 1.0 if direction == "max" else -1.0  # "worse" is negative after this
    mean, low, high = (sign * x for x in (diff.mean, diff.ci_low, diff.ci_high))
    low, high = min(low, high), max(low, high)
    if rule == "sure":
        return high < -tolerance
    return mean < -tolerance and high < 0


def compare(
    candidate: Scorecard,
    reference: Scorecard,
    definition: ScorecardDefinition,
    *,
    margin: float = 0.0,
    rule: Rule = "sure",
) -> Comparison:
    """Compare `candidate` with `reference` on their common (scenario, seed) instances;
    `rule` decides what counts as a regression (see `regressed`)."""
    cand_values = _values(candidate)
    ref_values = _values(reference)
    cand_obj = objectives(cand_values, definition)
    ref_obj = objectives(ref_values, definition)
    common = set(cand_obj) & set(ref_obj)
    if not common:
        raise ValueError("compare: the scorecards share no (scenario, seed) with an objective")
    objective_diff = paired_diff(
        per_seed_mean({k: cand_obj[k] for k in common}),
        per_seed_mean({k: ref_obj[k] for k in common}),
        span=1.0,
    )
    diffs: list[MetricDiff] = []
    for scenario in sorted(set(cand_values) & set(ref_values)):
        for name in definition.metrics:
            cand = candidate.scenarios[scenario].get(name)
            ref = reference.scenarios[scenario].get(name)
            if cand is None or ref is None or not set(cand.per_seed) & set(ref.per_seed):
                continue
            lo, hi = METRICS[name].range
            diff = paired_diff(cand.per_seed, ref.per_seed, span=hi - lo)
            tolerance = definition.tolerance(name)
            diffs.append(
                MetricDiff(
                    scenario,
                    name,
                    cand.direction,
                    tolerance,
                    diff,
                    # what an agent reports about itself is shown, never a reason
                    not METRICS[name].self_reported
                    and regressed(cand.direction, diff, tolerance, rule),
                )
            )
    means = {sc: {n: m.mean for n, m in ms.items()} for sc, ms in candidate.scenarios.items()}
    return Comparison(
        objective_diff, tuple(diffs), check_guardrails(means, definition), margin, rule
    )


def _values(card: Scorecard) -> dict[str, dict[str, dict[int, float]]]:
    return {sc: {n: m.per_seed for n, m in ms.items()} for sc, ms in card.scenarios.items()}
