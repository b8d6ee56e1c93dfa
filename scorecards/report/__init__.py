"""Reports of a scorecard: markdown and self-contained HTML, optionally logged to MLflow.

The markdown is text only and byte-identical for identical inputs (no timestamps); the HTML
embeds its figures as base64 PNG. Both are written atomically next to the scorecard JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from villagelab.files import atomic_write_bytes

from ..compare import Comparison
from ..scorecard import Scorecard
from ._blocks import Block, Figure, Figures, Heading, References, Table, Text, interval, num
from ._comparison import ordered, worse_by
from ._diffusion import diffusion_curves
from ._document import build
from ._render import markdown, page

__all__ = [
    "Block",
    "Figure",
    "Heading",
    "References",
    "Table",
    "Text",
    "diffusion_curves",
    "interval",
    "log_reports_to_mlflow",
    "num",
    "ordered",
    "worse_by",
    "write_document",
    "write_reports",
]


def write_reports(
    scorecard: Scorecard,
    traces: Mapping[str, pd.DataFrame],
    folder: str | Path,
    *,
    comparison: Comparison | None = None,
    title: str = "villagelab scorecard",
    context: Mapping[str, str] | None = None,
    failed: Collection[tuple[str, str]] | None = None,
    references: References | None = None,
) -> tuple[Path, Path]:
    """Write `report.md` and `report.html` into `folder`; return their paths.

    Sections: what was run (`context`: policy file, scenarios, seeds, date...); objective
    and guardrails; given a comparison, candidate − reference per scenario and metric,
    regressions first by severity (`failed`: the pairs a verdict calls regressions); every
    metric with its interval; a per-scenario breakdown; the diffusion of each tracked
    proposition over ticks, averaged over seeds, beside its published reach (`references`:
    scenario → proposition → (share of the audience, source)).
    """
    from . import _plots  # matplotlib only when a report is drawn

    curves = diffusion_curves(traces)

    def diffusion(sc: str) -> Callable[[], str | None]:  # binds sc (mypy types no `sc=sc` lambda)
        return lambda: _plots.diffusion_png(curves, sc, (references or {}).get(sc))

    figures: Figures = {
        "metrics": lambda: _plots.metrics_png(scorecard),
        **({"comparison": lambda: _plots.comparison_png(comparison, failed)} if comparison else {}),
        **{f"diffusion:{sc}": diffusion(sc) for sc in sorted(curves["scenario"].unique())},
    }
    blocks = build(scorecard, curves, comparison, title, figures, context, failed, references)
    return write_document(blocks, folder, title)


def write_document(
    blocks: Sequence[Block], folder: str | Path, title: str, stem: str = "report"
) -> tuple[Path, Path]:
    """Any report's blocks as `<stem>.md` and a self-contained `<stem>.html`."""
    folder = Path(folder)
    md_path, html_path = folder / f"{stem}.md", folder / f"{stem}.html"
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
