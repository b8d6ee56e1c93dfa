"""Diagnosis-driven proposals: read the champion's scorecard, find the failure mode furthest
from its best, and propose the move the whitelist declares against it.

The sampler explores; a diagnosis aims. When the sampler has not promoted for a while, the
search asks for one proposal here — the champion with every surface parameter declared to fix
the worst shortfall moved its declared way (a switch turned on with the thresholds it
enables) — and runs it as its next trial under the same promotion rules, recording the
diagnosis it answers.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from policies import Policy
from policies.param import Param
from policies.purposes import Shortfall
from scorecards import Scorecard, ScorecardDefinition
from scorecards._rules import normalised

STEP = 0.25  # a number moves this share of its range per proposal


@dataclass(frozen=True)
class Diagnosis:
    """A shortfall of the champion and the move aimed at it."""

    shortfall: Shortfall
    gap: float  # mean normalised distance from the metrics' best, over the scenarios (NaN: a
    # repair, aimed at a broken guardrail rather than a distance)
    worst: str  # the scenario/metric furthest from its best
    moves: tuple[tuple[str, Any, Any], ...]  # (parameter, champion's value, proposed)

    def params(self, champion: Policy, surface: Collection[str]) -> dict[str, Any]:
        """The trial's values for every searched parameter: the champion's, with the moves."""
        values = {name: champion[name] for name in surface}
        values.update({name: new for name, _, new in self.moves})
        return {
            name: value
            for name, value in values.items()
            if (switch := champion.surface.by_name[name].requires) is None
            or values.get(switch, True)
        }

    def describe(self) -> str:
        moved = ", ".join(
            f"{name} {show_value(old)} → {show_value(new)}" for name, old, new in self.moves
        )
        if math.isnan(self.gap):  # a repair: the gap is a broken guardrail's, said by the caller
            return f"{self.shortfall.value}: {moved}"
        return f"{self.shortfall.value} (worst {self.worst}, {self.gap:.2f} short): {moved}"


def shortfalls(
    card: Scorecard, definition: ScorecardDefinition
) -> list[tuple[Shortfall, float, str]]:
    """Each failure mode the champion shows, worst first — a broken guardrail's before any
    other (feasibility comes first) — with its mean distance from the best over the scenarios
    that measure its metrics, and the scenario/metric worst of all."""
    broken = {
        g.metric
        for g in definition.guardrails
        if g.key in card.guardrails and not card.guardrails[g.key].ok
    }
    out = []
    for shortfall in Shortfall:
        gaps: list[tuple[float, str]] = []
        for scenario, metrics in card.scenarios.items():
            for name in shortfall.metrics:
                summary = metrics.get(name)
                if summary is None or definition.weights.get(name, 0.0) <= 0:
                    continue
                gaps.append((1.0 - normalised(name, summary.mean), f"{scenario}/{name}"))
        if gaps:
            worst = max(gaps)
            out.append((shortfall, math.fsum(g for g, _ in gaps) / len(gaps), worst[1]))
    return sorted(out, key=lambda s: (not broken & set(s[0].metrics), -s[1], s[0].value))


def diagnose(
    card: Scorecard,
    definition: ScorecardDefinition,
    champion: Policy,
    surface: Collection[str],
    tried: Iterable[Shortfall] = (),
) -> Diagnosis | None:
    """The move aimed at the worst shortfall not `tried` since the last promotion that some
    surface parameter can still move; None when none is left."""
    skip = set(tried)
    for shortfall, gap, worst in shortfalls(card, definition):
        if shortfall in skip or gap <= 0:
            continue
        moves = moves_against(shortfall, champion, surface)
        if moves:
            return Diagnosis(shortfall, gap, worst, moves)
    return None


def moves_against(
    shortfall: Shortfall, policy: Policy, surface: Collection[str]
) -> tuple[tuple[str, Any, Any], ...]:
    """Every surface parameter declared against `shortfall` moved its declared way from
    `policy` (a threshold's switch turned on with it): (parameter, value, proposed)."""
    proposed: dict[str, Any] = {}
    params = policy.surface.params  # the whitelist and an agent's own (their `fixes` too)
    for p in params:
        way = dict(p.fixes).get(shortfall)
        if way is None or p.name not in surface:
            continue
        new = moved(p, policy[p.name], way)
        if new != policy[p.name]:
            proposed[p.name] = new
            if p.requires is not None and p.requires in surface:
                proposed.setdefault(p.requires, True)  # a threshold acts only under its switch
    return tuple(
        (name, policy[name], proposed[name])
        for name in (p.name for p in params)
        if name in proposed and proposed[name] != policy[name]
    )


def moved(p: Param, value: Any, up: bool) -> Any:
    """`value` moved one step (STEP of the range) up or down onto the nearest grid point
    within the range; a bool set."""
    if p.kind == "bool":
        return up
    if p.kind not in ("int", "float"):
        return value  # a category has no direction
    assert p.low is not None and p.high is not None
    step = (p.high - p.low) * STEP
    return p.on_grid(value + step if up else value - step)


def show_value(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value).lower()
