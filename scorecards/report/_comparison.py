"""The comparison section: regressions first, by severity, and a colour that means "worse"
whatever a metric's direction (a fall in reach and a rise in false certainty look alike)."""

from __future__ import annotations

import math
from collections.abc import Collection

from ..compare import Comparison, MetricDiff
from ..metrics import METRICS
from ._blocks import Block, Heading, Table, Text, interval, num

LEGEND = (
    "Rows are coloured by what the change means, whatever the metric's direction: "
    "**red** worse, **dark red** a regression (beyond tolerance), **green** better. "
    "Regressions come first, the most severe first (severity: how far the change lies "
    "beyond its tolerance, as a share of the metric's range, or in its own units for "
    "an unbounded one such as ticks); then the other changes, the worst first."
)


def worse_by(d: MetricDiff) -> float:
    """How much worse the candidate is, in the metric's own units (negative: better)."""
    return -d.diff.mean if d.direction == "max" else d.diff.mean


def _span(metric: str) -> float:
    lo, hi = METRICS[metric].range if metric in METRICS else (0.0, 1.0)
    return hi - lo if math.isfinite(hi) else 1.0


def severity(d: MetricDiff) -> float:
    """How far beyond its tolerance a change lies, as a share of the metric's range."""
    return (worse_by(d) - d.tolerance) / _span(d.metric)


def ordered(
    comparison: Comparison, failed: Collection[tuple[str, str]] | None = None
) -> list[tuple[MetricDiff, bool]]:
    """(difference, regressed) pairs: regressions first, then by severity, worst first.

    `failed`: the (scenario, metric) pairs a verdict calls regressions (the gate's, after
    Holm's correction); without it, the comparison's own `regressed` flag."""

    def regressed(d: MetricDiff) -> bool:
        return (d.scenario, d.metric) in failed if failed is not None else d.regressed

    def key(pair: tuple[MetricDiff, bool]) -> tuple[bool, float, str, str]:
        d, bad = pair
        how_bad = severity(d) if bad else worse_by(d) / _span(d.metric)
        return (not bad, -how_bad, d.scenario, d.metric)

    return sorted(((d, regressed(d)) for d in comparison.metrics), key=key)


def mark(d: MetricDiff, regressed: bool) -> str:
    if regressed:
        return "regressed"
    change = worse_by(d)
    return "worse" if change > 1e-12 else "better" if change < -1e-12 else ""


def section(
    comparison: Comparison, failed: Collection[tuple[str, str]] | None = None
) -> list[Block]:
    rows, marks = [], []
    regressions = 0
    for d, regressed in ordered(comparison, failed):
        regressions += regressed
        rows.append(
            (
                d.scenario,
                d.metric,
                "↑" if d.direction == "max" else "↓",
                num(d.diff.mean, signed=True),
                interval(d.diff.ci_low, d.diff.ci_high),
                num(d.tolerance),
                "REGRESSED" if regressed else mark(d, regressed),
            )
        )
        marks.append(mark(d, regressed))
    breaks = comparison.guardrail_breaks
    rule = {
        "sure": "its whole interval lies beyond the tolerance",
        "likely": "its mean lies beyond the tolerance and its interval on the worse side of zero",
    }[comparison.rule]
    if failed is not None:
        rule += ", and Holm's procedure over the family of checks rejects it"
    return [
        Heading(2, "Comparison with the reference"),
        Text(
            f"Candidate − reference, paired on common seeds: {regressions} "
            f"regression{'s' if regressions != 1 else ''} of {len(rows)} checks "
            f"(a change regresses when {rule}). Guardrails: "
            + ("all hold." if not breaks else "BROKEN: " + ", ".join(breaks) + ".")
        ),
        Text(LEGEND),
        Table(
            ("scenario", "metric", "dir", "Δ mean", "Δ 95% CI", "tolerance", "verdict"),
            tuple(rows),
            tuple(marks),
        ),
    ]
