"""Scorecards: metrics over traces, the balanced scorecard, guardrails, seed statistics,
reports.

Works on pandas DataFrames of the trace tables (design §4-§5; harness/engine/schema.py is the
contract). Reports live in `scorecards.report` (matplotlib is imported only when drawing).
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
from .report import diffusion_curves, log_reports_to_mlflow, write_reports
from .scorecard import (
    MetricSummary,
    Scorecard,
    Values,
    assemble,
    instance_objective,
    measure,
    merge_values,
    score,
)
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
    "Values",
    "assemble",
    "compare",
    "diffusion_curves",
    "instance_objective",
    "load_definition",
    "log_reports_to_mlflow",
    "mean_ci",
    "measure",
    "merge_values",
    "paired_diff",
    "render_table",
    "score",
    "write_reports",
]
