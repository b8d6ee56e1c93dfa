"""Reports of a scorecard: markdown and self-contained HTML, optionally logged to MLflow.

The markdown is text only and byte-identical for identical inputs (no timestamps); the HTML
embeds its figures as base64 PNG. Both are written atomically next to the scorecard JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from villagelab.files import atomic_write_bytes

from ..compare import Comparison
from ..scorecard import Scorecard
from ._diffusion import diffusion_curves
from ._document import build
from ._render import markdown, page

__all__ = ["diffusion_curves", "log_reports_to_mlflow", "write_reports"]

MARKDOWN_NAME = "report.md"
HTML_NAME = "report.html"


def write_reports(
    scorecard: Scorecard,
    traces: Mapping[str, pd.DataFrame],
    folder: str | Path,
    *,
    comparison: Comparison | None = None,
    title: str = "villagelab scorecard",
) -> tuple[Path, Path]:
    """Write `report.md` and `report.html` into `folder`; return their paths.

    Sections: objective and guardrails; every metric with its interval (and, given a
    comparison, candidate − reference per scenario and metric); a per-scenario breakdown;
    the diffusion of each tracked proposition over ticks, averaged over seeds.
    """
    from . import _plots  # matplotlib only when a report is drawn

    curves = diffusion_curves(traces)
    figures = {
        "metrics": lambda: _plots.metrics_png(scorecard),
        **({"comparison": lambda: _plots.comparison_png(comparison)} if comparison else {}),
        **{
            f"diffusion:{sc}": (lambda sc=sc: _plots.diffusion_png(curves, sc))
            for sc in sorted(curves["scenario"].unique())
        },
    }
    blocks = build(scorecard, curves, comparison, title, figures)
    folder = Path(folder)
    md_path, html_path = folder / MARKDOWN_NAME, folder / HTML_NAME
    atomic_write_bytes(md_path, markdown(blocks).encode())
    atomic_write_bytes(html_path, page(blocks, title).encode())
    return md_path, html_path


def log_reports_to_mlflow(paths: Iterable[str | Path], artifact_path: str = "reports") -> bool:
    """Log the reports as artifacts of the active MLflow run; without one, do nothing.

    Returns whether anything was logged. MLflow is imported only here.
    """
    import mlflow

    if mlflow.active_run() is None:
        return False
    for path in paths:
        mlflow.log_artifact(str(path), artifact_path=artifact_path)
    return True
