"""The gate's verdict: guardrails, and regressions tested with false alarms under control.

Every (scenario, metric) both scorecards measured is one test: H0 "the candidate is no worse
than the baseline by more than the metric's tolerance", one-sided paired t on the per-seed
differences. Many metrics × scenarios make a family; Holm's step-down procedure keeps the
chance of any false alarm in the family at most `alpha`. A check fails only when Holm rejects
it and its paired interval lies entirely beyond the tolerance on the bad side.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from .compare import Comparison, MetricDiff, compare
from .definition import ScorecardDefinition
from .scorecard import Scorecard

ALPHA = 0.05


@dataclass(frozen=True)
class Check:
    diff: MetricDiff
    p_value: float  # one-sided: the difference is worse than the tolerance
    failed: bool  # Holm rejects and the interval is beyond tolerance

    @property
    def name(self) -> str:
        return f"{self.diff.scenario}/{self.diff.metric}"


@dataclass(frozen=True)
class Verdict:
    comparison: Comparison
    checks: tuple[Check, ...]
    alpha: float

    @property
    def regressions(self) -> list[Check]:
        return [c for c in self.checks if c.failed]

    @property
    def guardrail_breaks(self) -> list[str]:
        return self.comparison.guardrail_breaks

    @property
    def passed(self) -> bool:
        return not self.regressions and not self.guardrail_breaks


def _worse_p(
    candidate: dict[int, float], reference: dict[int, float], direction: str, tolerance: float
) -> float:
    """p-value of "the candidate is worse than the reference by more than `tolerance`"."""
    seeds = sorted(set(candidate) & set(reference))
    sign = 1.0 if direction == "max" else -1.0  # make "bad" negative
    x = np.array([sign * (candidate[s] - reference[s]) + tolerance for s in seeds])
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if len(x) > 1 else 0.0
    if sd == 0.0 or not math.isfinite(sd):
        return 0.0 if mean < 0 else 1.0
    t = mean / (sd / math.sqrt(len(x)))
    from scipy.special import stdtr  # Student t CDF, without scipy.stats' import cost

    return float(stdtr(len(x) - 1, t))


def holm(p_values: list[float], alpha: float) -> list[bool]:
    """Holm's step-down rejections, in the input order."""
    order = sorted(range(len(p_values)), key=lambda i: (p_values[i], i))
    rejected = [False] * len(p_values)
    m = len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (m - rank):
            break
        rejected[i] = True
    return rejected


def verdict(
    candidate: Scorecard, baseline: Scorecard, definition: ScorecardDefinition, alpha: float = ALPHA
) -> Verdict:
    comparison = compare(candidate, baseline, definition)
    p_values = [
        _worse_p(
            candidate.scenarios[d.scenario][d.metric].per_seed,
            baseline.scenarios[d.scenario][d.metric].per_seed,
            d.direction,
            d.tolerance,
        )
        for d in comparison.metrics
    ]
    rejected = holm(p_values, alpha)
    checks = tuple(
        Check(d, p, r and d.regressed) for d, p, r in zip(comparison.metrics, p_values, rejected)
    )
    return Verdict(comparison, checks, alpha)


def junit_xml(result: Verdict, suite: str = "villagelab gate") -> str:
    """One test case per (scenario, metric) and per guardrail; failures carry the numbers."""
    cases = ET.Element("testsuite", name=suite)
    failures = 0
    for check in result.checks:
        d = check.diff
        case = ET.SubElement(cases, "testcase", classname=d.scenario, name=d.metric)
        if check.failed:
            failures += 1
            ET.SubElement(
                case,
                "failure",
                message=(
                    f"{d.metric} regressed by {d.diff.mean:+.4f} [{d.diff.ci_low:+.4f}, "
                    f"{d.diff.ci_high:+.4f}], tolerance {d.tolerance:g}, "
                    f"Holm-adjusted family of {len(result.checks)}, p={check.p_value:.2e}"
                ),
            )
    for name, g in result.comparison.guardrails.items():
        case = ET.SubElement(cases, "testcase", classname="guardrails", name=name)
        if not g.ok:
            failures += 1
            ET.SubElement(case, "failure", message=f"{name} = {g.value} breaks its limit {g.limit}")
    cases.set("tests", str(len(result.checks) + len(result.comparison.guardrails)))
    cases.set("failures", str(failures))
    return ET.tostring(cases, encoding="unicode", xml_declaration=True) + "\n"


def markdown_summary(result: Verdict, harness_note: str) -> str:
    lines = [
        f"## villagelab gate: {'pass' if result.passed else 'FAIL'}",
        "",
        (
            f"{len(result.checks)} paired checks (Holm, family-wise α = {result.alpha}), "
            f"{len(result.comparison.guardrails)} guardrails; {harness_note}."
        ),
        "",
    ]
    if result.guardrail_breaks or result.regressions:
        lines += ["| check | change | 95% CI | tolerance |", "|---|---|---|---|"]
        for name in result.guardrail_breaks:
            g = result.comparison.guardrails[name]
            lines.append(f"| guardrail {name} | {g.value} | limit {g.limit} | — |")
        for c in result.regressions:
            d = c.diff
            lines.append(
                f"| {c.name} | {d.diff.mean:+.3f} | [{d.diff.ci_low:+.3f}, "
                f"{d.diff.ci_high:+.3f}] | {d.tolerance:g} |"
            )
    else:
        lines.append("No guardrail broken, no metric beyond its tolerance.")
    return "\n".join(lines) + "\n"
