"""A scorecard (and optionally its comparison with a reference) as a rich table."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from villagelab.safe_text import printable

from .compare import Comparison, MetricDiff
from .scorecard import MetricSummary, Scorecard

_ARROW = {"max": "↑", "min": "↓"}


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _ci(low: float | None, high: float | None) -> str:
    return "—" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def _diff_cells(diff: MetricDiff | None) -> list[str]:
    if diff is None:
        return ["—", "—", ""]
    d = diff.diff
    return [
        f"{d.mean:+.3f}",
        _ci(d.ci_low, d.ci_high),
        "[red]regressed[/red]" if diff.regressed else "",
    ]


def _literal(name: str) -> Text:
    """A name read from traces shown as itself: never parsed as markup, controls escaped."""
    return Text(printable(name))


def render_table(scorecard: Scorecard, comparison: Comparison | None = None) -> Table:
    """Objective, metrics overall and per scenario, guardrails; Δ columns given a comparison."""
    table = Table(title=f"scorecard · policy {scorecard.policy[:12]}", show_lines=False)
    for column in ("scope", "metric", "dir", "mean", "95% CI", "seeds"):
        table.add_column(column, justify="right" if column in ("mean", "seeds") else "left")
    if comparison is not None:
        for column in ("Δ mean", "Δ 95% CI", "verdict"):
            table.add_column(column)
    diffs = {} if comparison is None else {(d.scenario, d.metric): d for d in comparison.metrics}

    def row(scope: str, name: str, m: MetricSummary, diff: MetricDiff | None) -> None:
        cells: list[str | Text] = [
            _literal(scope),
            _literal(name),
            _ARROW[m.direction],
            _num(m.mean),
            _ci(m.ci_low, m.ci_high),
            str(len(m.per_seed)),
        ]
        table.add_row(*cells, *(_diff_cells(diff) if comparison is not None else []))

    low, high = scorecard.objective_ci or (None, None)
    cells: list[str | Text] = [
        "all",
        "objective",
        "↑",
        _num(scorecard.objective),
        _ci(low, high),
        str(len(scorecard.objective_per_seed)),
    ]
    if comparison is not None:
        d = comparison.objective_diff
        cells += [
            f"{d.mean:+.3f}",
            _ci(d.ci_low, d.ci_high),
            "[green]improves[/green]" if comparison.improves else "no gain",
        ]
    table.add_row(*cells)
    for name, m in scorecard.metrics.items():
        row("all", name, m, None)
    for scenario, metrics in scorecard.scenarios.items():
        table.add_section()
        for name, m in metrics.items():
            row(scenario, name, m, diffs.get((scenario, name)))
    if scorecard.guardrails:
        table.add_section()
    for name, g in scorecard.guardrails.items():
        verdict = "n/a" if not g.applicable else ("ok" if g.ok else "[red]BROKEN[/red]")
        cells = [
            "guardrail",
            _literal(name),
            "",
            _num(g.value),
            f"limit {g.limit:g} · {verdict}",
            "",
        ]
        table.add_row(*cells, *([""] * 3 if comparison is not None else []))
    return table
