"""Scorecards: metrics over traces, the balanced scorecard, guardrails, seed statistics.

Works on pandas DataFrames of the trace tables (DESIGN §4-§5); independent of the harness.
"""

from __future__ import annotations

from ._rules import GuardrailResult
from .compare import Comparison, MetricDiff, compare
from .definition import (
    DEFAULT_PATH,
    Guardrail,
    ScorecardDefinition,
    ScorecardDefinitionError,
    load_definition,
)
from .metrics import METRICS, Metric
from .scorecard import MetricSummary, Scorecard, score
from .stats import Interval, mean_ci, paired_diff
from .table import render_table

__all__ = [
    "DEFAULT_PATH",
    "METRICS",
    "Comparison",
    "Guardrail",
    "GuardrailResult",
    "Interval",
    "Metric",
    "MetricDiff",
    "MetricSummary",
    "Scorecard",
    "ScorecardDefinition",
    "ScorecardDefinitionError",
    "compare",
    "load_definition",
    "mean_ci",
    "paired_diff",
    "render_table",
    "score",
]
