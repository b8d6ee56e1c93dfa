"""`villagelab bench --instrument`: does every metric of the suite move? Each metric's mean
across baseline, careful, the simple agent and two random policies (drawn from the reference
agent's whitelist with fixed seeds), with its spread. A metric that carries weight in the
objective and is constant across all of them measures nothing the search could change: it
is flagged (issue 14); so is one that weighs what agents report about themselves (none may:
the scorecard's loader refuses it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from experiments.evaluation.dispatch import Execution
from experiments.evaluation.evaluate import Instrument, evaluate
from policies import WHITELIST, Policy, load_policy
from scenarios import load_suite
from scorecards import METRICS

ROOT = Path(__file__).resolve().parents[2]
OTHER_AGENTS = ("prompt", "llm")  # families only the LLM agent reads
RANDOM_SEEDS = (1, 2)


def random_policy(base: Policy, seed: int) -> Policy:
    """Every reference-agent parameter drawn uniformly from its range (a fixed stream)."""
    rng = np.random.default_rng(seed)
    changes: dict[str, bool | int | float | str] = {}
    for p in WHITELIST:
        if p.family in OTHER_AGENTS:
            continue
        if p.kind == "bool":
            changes[p.name] = bool(rng.integers(2))
        elif p.kind == "int":
            changes[p.name] = int(rng.integers(int(p.low or 0), int(p.high or 0) + 1))
        elif p.kind == "float":
            changes[p.name] = round(float(rng.uniform(p.low or 0.0, p.high or 1.0)), 3)
        else:
            changes[p.name] = str(rng.choice(list(p.choices)))
    return base.with_values(changes)


@dataclass(frozen=True)
class Spread:
    metric: str
    weight: float
    means: dict[str, float | None]  # contender → suite mean (None: absent)

    @property
    def spread(self) -> float:
        values = [v for v in self.means.values() if v is not None]
        return max(values) - min(values) if values else 0.0

    @property
    def measured(self) -> bool:
        """Some contender has it: a scenario of this suite declares it."""
        return any(v is not None for v in self.means.values())

    @property
    def idle_weight(self) -> bool:
        """Weighted and measured, yet no contender moves it (a metric only another suite
        declares - the companion suite's - is not measured here, so not idle)."""
        return self.weight > 0 and self.measured and self.spread == 0.0


def contenders() -> list[tuple[str, Policy, str]]:
    careful = load_policy(ROOT / "policies" / "careful.yaml")
    baseline = load_policy(ROOT / "policies" / "baseline.yaml")
    return [
        ("baseline", baseline, "reference"),
        ("careful", careful, "reference"),
        ("simple", careful, "simple"),
        *((f"random_{s}", random_policy(careful, s), "reference") for s in RANDOM_SEEDS),
    ]


def instrument_spread(
    execution_for: Callable[[str], Execution], seeds: Sequence[int]
) -> tuple[dict[str, float | None], list[Spread]]:
    """(each contender's objective, each metric's spread) on the suite's scenarios."""
    instrument = Instrument.load(list(load_suite().scenarios))
    cards = {
        name: evaluate(policy, instrument, seeds, execution_for(agent)).scorecard
        for name, policy, agent in contenders()
    }
    definition = instrument.definition
    rows = [
        Spread(
            metric,
            definition.weight(metric),
            {
                name: card.metrics[metric].mean if metric in card.metrics else None
                for name, card in cards.items()
            },
        )
        for metric in definition.metrics
    ]
    return {name: card.objective for name, card in cards.items()}, rows


def show_instrument(out: Any, execution_for: Callable[[str], Execution]) -> None:
    """The table `bench --instrument` prints, and its closing `key: value` line."""
    from rich.table import Table

    objectives, rows = instrument_spread(execution_for, load_suite().seeds.selection)
    names = list(objectives)
    table = Table(title="instrument: suite means (selection seeds)", title_justify="left")
    for column in ("metric", "weight", "reads", *names, "spread", ""):
        table.add_column(column)
    table.add_row(
        "objective",
        "",
        "",
        *(f"{v:.3f}" if v is not None else "—" for v in objectives.values()),
        "",
        "",
    )
    for r in rows:
        means = [f"{r.means[n]:.3f}" if r.means[n] is not None else "—" for n in names]
        flag = "weighted but constant" if r.idle_weight else ""
        flag = flag if r.measured else "not in this suite"
        reads = "agent reports" if METRICS[r.metric].self_reported else "observed"
        table.add_row(r.metric, f"{r.weight:g}", reads, *means, f"{r.spread:.3f}", flag)
    out.show(table)
    idle = [r.metric for r in rows if r.idle_weight]
    out.say(f"instrument.idle_weighted_metrics: {', '.join(idle) if idle else 'none'}")
    told = [r.metric for r in rows if r.weight > 0 and METRICS[r.metric].self_reported]
    out.say(f"instrument.weighted_self_reported: {', '.join(told) if told else 'none'}")
