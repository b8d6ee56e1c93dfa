"""The report's figures as base64 PNG: drawn on a bare Agg canvas (no pyplot, no global
backend, no display), with metadata that would change between runs left out."""

from __future__ import annotations

import base64
import io
from collections.abc import Collection, Mapping

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..compare import Comparison
from ..metrics import METRICS
from ..scorecard import Scorecard

COLOURS = {"knowers": "#1f77b4", "hedged": "#ff7f0e", "outsiders": "#d62728"}


def _png(figure: Figure) -> str:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def diffusion_png(
    curves: pd.DataFrame, scenario: str, published: Mapping[str, tuple[float, str]] | None = None
) -> str:
    """One panel per tracked proposition of a scenario: knowers, hedged, outsiders by tick,
    and the published reach where one is given (as a share of the audience)."""
    mine = curves[curves["scenario"] == scenario]
    propositions = sorted(mine["proposition"].unique())
    columns = min(3, len(propositions))
    rows = -(-len(propositions) // columns)
    figure = Figure(figsize=(4.2 * columns, 3.0 * rows), layout="constrained")
    axes = np.atleast_1d(figure.subplots(rows, columns, squeeze=False)).ravel()
    for ax, proposition in zip(axes, propositions, strict=False):
        curve = mine[mine["proposition"] == proposition]
        lines = ["knowers", "hedged"] + (["outsiders"] if curve["private"].iloc[0] else [])
        for line in lines:
            ax.step(curve["tick"], curve[line], where="post", label=line, color=COLOURS[line])
        ax.axhline(curve["audience"].iloc[0], linestyle=":", color="grey", label="audience")
        if published and proposition in published:
            reach = published[proposition][0]
            ax.axhline(
                reach * curve["audience"].iloc[0],
                linestyle="--",
                color="#2ca02c",
                label=f"published reach {reach:.0%}",
            )
        seeds = int(curve["seeds"].iloc[0])
        ax.set_title(f"{proposition}", fontsize=9)
        ax.set_xlabel("tick")
        ax.set_ylabel(f"agents (mean of {seeds} seeds)", fontsize=8)
        ax.legend(fontsize=7, loc="upper left")
    for ax in axes[len(propositions) :]:
        ax.set_visible(False)
    figure.suptitle(f"diffusion · {scenario}", fontsize=10)
    return _png(figure)


def metrics_png(card: Scorecard) -> str | None:
    """Bounded metrics overall: mean and interval as a share of the metric's range."""
    names = [n for n in card.metrics if METRICS[n].bounded]
    if not names:
        return None
    figure = Figure(figsize=(7.0, 0.35 * len(names) + 1.0), layout="constrained")
    ax = figure.subplots()
    for y, name in enumerate(reversed(names)):
        m, (lo, hi) = card.metrics[name], METRICS[name].range
        mean, low, high = ((v - lo) / (hi - lo) for v in (m.mean, m.ci_low, m.ci_high))
        ax.errorbar(
            mean, y, xerr=[[mean - low], [high - mean]], fmt="o", color="#1f77b4", capsize=3
        )
    arrows = {"max": "↑", "min": "↓"}
    ax.set_yticks(
        range(len(names)),
        [f"{n} {arrows[card.metrics[n].direction]}" for n in reversed(names)],
        fontsize=8,
    )
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("mean and 95% interval, as a share of the metric's range")
    return _png(figure)


def comparison_png(
    comparison: Comparison, failed: Collection[tuple[str, str]] | None = None
) -> str | None:
    """Candidate - reference per (scenario, bounded metric), as a share of the range, in the
    report's order (regressions first) and colours (red: worse, whatever the direction)."""
    from ._comparison import mark, ordered

    pairs = [(d, r) for d, r in ordered(comparison, failed) if METRICS[d.metric].bounded]
    if not pairs:
        return None
    colours = {"regressed": "#a50f15", "worse": "#e6550d", "better": "#2ca02c", "": "#777777"}
    figure = Figure(figsize=(7.0, 0.3 * len(pairs) + 1.2), layout="constrained")
    ax = figure.subplots()
    for y, (d, regressed) in enumerate(reversed(pairs)):
        lo, hi = METRICS[d.metric].range
        mean, low, high = (v / (hi - lo) for v in (d.diff.mean, d.diff.ci_low, d.diff.ci_high))
        ax.errorbar(
            mean,
            y,
            xerr=[[mean - low], [high - mean]],
            fmt="o",
            capsize=3,
            color=colours[mark(d, regressed)],
        )
    ax.axvline(0.0, color="grey", linewidth=0.8)
    ax.set_yticks(
        range(len(pairs)), [f"{d.scenario} · {d.metric}" for d, _ in reversed(pairs)], fontsize=7
    )
    ax.set_xlabel(
        "candidate − reference, share of range (dark red: regressed, orange: worse, green: better)"
    )
    return _png(figure)
