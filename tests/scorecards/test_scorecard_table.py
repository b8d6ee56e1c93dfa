"""`render_table`: the scorecard and its comparison as terminal text."""

from __future__ import annotations

from rich.console import Console
from scorecard_traces import concat, episode

from scorecards import Guardrail, ScorecardDefinition, compare, render_table, score

HASHES = {"harness": "h", "instrument": "i", "policy": "0123456789abcdef"}
DEFINITION = ScorecardDefinition(
    metrics=("reach", "provenance"),
    weights={"reach": 1, "provenance": 1},
    tolerances={"reach": 0.05, "provenance": 0.05},
    guardrails=(Guardrail(metric="reach", op=">=", limit=0.6),),
)


def _text(table: object) -> str:
    console = Console(record=True, width=160, color_system=None)
    console.print(table)
    return console.export_text()


def test_table_shows_objective_metrics_scenarios_and_guardrails() -> None:
    traces = concat(
        episode("alpha", 0, knowers=2, named=2), episode("alpha", 1, knowers=4, named=4)
    )
    card = score(traces, DEFINITION, hashes=HASHES)
    text = _text(render_table(card))
    assert "policy 0123456789ab" in text
    # objective per seed: (.5 + .5) / 2 and (1 + 1) / 2; t interval with 1 degree of freedom
    assert "│ all       │ objective  │ ↑   │ 0.750 │ [0.000, 1.000] │     2 │" in text
    assert "│ alpha     │ reach      │ ↑   │ 0.750 │ [0.000, 1.000] │     2 │" in text
    assert "limit 0.6 · ok" in text


def test_table_with_a_comparison_flags_regressions() -> None:
    good = score(
        concat(episode("alpha", 0, knowers=4, named=4), episode("alpha", 1, knowers=4, named=4)),
        DEFINITION,
        hashes=HASHES,
    )
    bad = score(
        concat(episode("alpha", 0, knowers=1, named=1), episode("alpha", 1, knowers=1, named=1)),
        DEFINITION,
        hashes=HASHES,
    )
    text = _text(render_table(bad, compare(bad, good, DEFINITION)))
    assert "regressed" in text and "-0.750" in text and "no gain" in text
    assert "BROKEN" in text
