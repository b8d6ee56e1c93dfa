"""The report as a list of blocks (headings, text, tables, figures), rendered twice: as
markdown (text only, byte-identical for identical inputs) and as self-contained HTML."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np
import pandas as pd

from ..compare import Comparison
from ..metrics import METRICS
from ..scorecard import MetricSummary, Scorecard
from ._blocks import Block, Figure, Figures, Heading, References, Table, Text, interval, num
from ._comparison import section

SAMPLES = 9  # ticks of each diffusion curve shown as a table


def _summary(m: MetricSummary | None) -> str:
    return "—" if m is None else f"{num(m.mean)} {interval(m.ci_low, m.ci_high)}"


def _figure(figures: Figures, key: str, caption: str) -> list[Block]:
    draw = figures.get(key)
    png = None if draw is None else draw()
    return [] if png is None else [Figure(caption, png)]


def build(
    card: Scorecard,
    curves: pd.DataFrame,
    comparison: Comparison | None,
    title: str,
    figures: Figures,
    context: Mapping[str, str] | None = None,
    failed: Collection[tuple[str, str]] | None = None,
    references: References | None = None,
) -> list[Block]:
    """Every block of the report, in order: what was run, the objective and guardrails, the
    comparison (regressions first), the metrics, per scenario, the diffusion curves (each
    beside its published reach, where its scenario names one)."""
    blocks: list[Block] = [Heading(1, title)]
    if context:
        blocks.append(Table(("", ""), tuple((k, v) for k, v in context.items())))
    blocks.append(
        Text(
            f"policy `{card.policy[:12]}` · harness `{card.harness[:12]}` · "
            f"instrument `{card.instrument[:12]}`"
        )
    )
    blocks += _objective(card, comparison)
    if comparison is not None:
        blocks += section(comparison, failed)
        blocks += _figure(
            figures,
            "comparison",
            "candidate − reference by scenario, paired "
            "on common seeds (red: worse beyond tolerance)",
        )
    blocks += _metrics(card)
    blocks += _figure(
        figures,
        "metrics",
        "bounded metrics over all scenarios, mean and 95% "
        "interval as a share of each metric's range",
    )
    blocks += _scenarios(card)
    blocks += _diffusion(curves, figures, references or {})
    return blocks


def _objective(card: Scorecard, comparison: Comparison | None) -> list[Block]:
    low, high = card.objective_ci or (None, None)
    rows = [
        ("objective", num(card.objective), interval(low, high), str(len(card.objective_per_seed)))
    ]
    if comparison is not None:
        d = comparison.objective_diff
        verdict = "improves" if comparison.improves else "no gain"
        rows.append(
            (
                f"Δ objective vs reference ({verdict}, margin {num(comparison.margin)})",
                num(d.mean, signed=True),
                interval(d.ci_low, d.ci_high),
                str(d.n),
            )
        )
    guardrails = [
        (
            name,
            num(g.value),
            f"{g.limit:g}",
            "n/a" if not g.applicable else ("ok" if g.ok else "BROKEN"),
        )
        for name, g in card.guardrails.items()
    ]
    verdict = (
        "all hold"
        if card.guardrails_ok
        else "BROKEN: " + ", ".join(n for n, g in card.guardrails.items() if not g.ok)
    )
    out: list[Block] = [
        Heading(2, "Objective"),
        Table(("quantity", "mean", "95% CI", "seeds"), tuple(rows)),
        Heading(2, "Guardrails"),
        Text(f"Guardrails: {verdict}." if guardrails else "No guardrails declared."),
    ]
    if guardrails:
        out.append(
            Table(("guardrail", "worst scenario mean", "limit", "verdict"), tuple(guardrails))
        )
    return out


def _metrics(card: Scorecard) -> list[Block]:
    arrows = {"max": "↑", "min": "↓"}
    rows = tuple(
        (
            name,
            arrows[m.direction],
            num(m.mean),
            interval(m.ci_low, m.ci_high),
            str(len(m.per_seed)),
            METRICS[name].definition if name in METRICS else "",
        )
        for name, m in card.metrics.items()
    )
    return [
        Heading(2, "Metrics (all scenarios, mean over scenarios per seed)"),
        Table(("metric", "dir", "mean", "95% CI", "seeds", "definition"), rows),
    ]


def _scenarios(card: Scorecard) -> list[Block]:
    scenarios = list(card.scenarios)
    names = [n for n in card.metrics] + sorted(
        {n for ms in card.scenarios.values() for n in ms} - set(card.metrics)
    )
    rows = tuple(
        (name, *(_summary(card.scenarios[sc].get(name)) for sc in scenarios)) for name in names
    )
    return [
        Heading(2, "Per scenario (mean [95% CI]; — = absent)"),
        Table(("metric", *scenarios), rows),
    ]


def _diffusion(curves: pd.DataFrame, figures: Figures, references: References) -> list[Block]:
    out: list[Block] = [Heading(2, "Diffusion of tracked propositions")]
    if curves.empty:
        return [*out, Text("No tracked proposition in these traces.")]
    out.append(
        Text(
            "Agents (origin excluded) exposed to the true value by each tick "
            "(knowers), those whose exposures were all hedged, and outsiders of a "
            "private proposition exposed to it; mean over seeds."
        )
    )
    for scenario in sorted(curves["scenario"].unique()):
        mine = curves[curves["scenario"] == scenario]
        out.append(Heading(3, str(scenario)))
        published = references.get(str(scenario), {})
        for proposition in sorted(mine["proposition"].unique()):
            curve = mine[mine["proposition"] == proposition]
            out += _curve_table(curve)
            if proposition in published:
                out.append(_beside(curve, *published[proposition]))
        out += _figure(figures, f"diffusion:{scenario}", f"diffusion in {scenario}")
    return out


def _curve_table(curve: pd.DataFrame) -> Sequence[Block]:
    first = curve.iloc[0]
    picks = np.unique(np.linspace(0, len(curve) - 1, SAMPLES).round().astype(int))
    rows = tuple(
        (str(int(r.tick)), num(r.knowers), num(r.hedged), num(r.outsiders))
        for r in curve.iloc[picks].itertuples(index=False)
    )
    kind = "private" if first["private"] else "public"
    return [
        Text(
            f"**{first['proposition']}** ({kind}; audience {first['audience']:g} agents; "
            f"{int(first['seeds'])} seeds)"
        ),
        Table(("tick", "knowers", "hedged", "outsiders"), rows),
    ]


def _beside(curve: pd.DataFrame, reach: float, source: str) -> Text:
    """The curve's last point beside a published reach, both as shares of the audience."""
    audience = float(curve["audience"].iloc[0])
    here = float(curve["knowers"].iloc[-1]) / audience if audience else 0.0
    return Text(
        f"Reached by the last tick: {here:.0%} of the audience ({num(here * audience)} of "
        f"{audience:g} agents); published: {reach:.0%} ({source})."
    )
