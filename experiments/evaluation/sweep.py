"""One-dimensional sweeps: one parameter over several values, everything else held, the same
scenarios and seeds (common random numbers) — to see what a parameter buys and what it costs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from experiments.evaluation.dispatch import Execution
from experiments.evaluation.evaluate import Evaluation, Instrument, evaluate
from policies import BUILTIN, InputError, Policy, Surface
from policies.policy import Value


@dataclass(frozen=True)
class SweepPoint:
    value: object
    objective: float | None
    metrics: dict[str, dict[str, float]]  # scenario → metric → mean over seeds


def parse_values(name: str, text: str, surface: Surface = BUILTIN) -> list[Value]:
    if name not in surface.by_name:
        raise InputError(f"{name!r} is not on the {surface.label}; see 'villagelab policy show'")
    p = surface.by_name[name]
    out: list[Value] = []
    for raw in text.split(","):
        raw = raw.strip()
        value: Value = (
            raw.lower() == "true"
            if p.kind == "bool"
            else int(raw)
            if p.kind == "int"
            else float(raw)
            if p.kind == "float"
            else raw
        )
        out.append(value)
    return out


def sweep(
    base: Policy,
    name: str,
    values: Sequence[Value],
    instrument: Instrument,
    seeds: Sequence[int],
    execution: Execution,
    on_point: Callable[[object, Evaluation], None] | None = None,
) -> list[SweepPoint]:
    """Evaluate each value in turn; `on_point` sees each evaluation (to log it)."""
    policies = [base.with_values({name: value}) for value in values]  # all validated first
    points = []
    for value, policy in zip(values, policies, strict=True):
        evaluation = evaluate(policy, instrument, seeds, execution)
        if on_point is not None:
            on_point(value, evaluation)
        card = evaluation.scorecard
        points.append(
            SweepPoint(
                value,
                card.objective,
                {sc: {m: s.mean for m, s in by.items()} for sc, by in card.scenarios.items()},
            )
        )
    return points
