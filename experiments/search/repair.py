"""Near misses, repaired: the plateau the sampler cannot leave on its own.

A search can stall with its best trials all just past a guardrail: each scores above the
champion and breaks, say, containment in one scenario. The sampler, told those trials' negative
violations, steers away from the whole region, and the champion's own diagnoses run out. A
repair takes the best such trial and moves, from its policy, the parameters the whitelist
declares against the failure mode its broken guardrail shows (a leak: `respect_privacy` on, its
threshold lower), keeping everything else that made it score — a restart from the best
infeasible non-champion instead of from the champion.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass

import optuna
from optuna.trial import TrialState

from experiments.search.diagnosis import Diagnosis, moves_against
from experiments.search.study import Decision
from policies import Policy
from policies.purposes import Shortfall
from scorecards import ScorecardDefinition

REPAIR_OF = "repair_of"  # a repair trial's user attribute: the number of the trial it repairs


@dataclass(frozen=True)
class NearMiss:
    """A measured trial with a higher objective than the champion's that broke a guardrail."""

    number: int
    objective: float
    policy: Policy
    broken: tuple[str, ...]  # the guardrails' metrics, worst first

    def describe(self, move: Diagnosis) -> str:
        """What a repair trial records as the diagnosis it answers."""
        return (
            f"repair of trial {self.number} (objective {self.objective:.4f}, breaks "
            f"{', '.join(self.broken)}): {move.describe()}"
        )


def near_misses(
    trials: Iterable[optuna.trial.FrozenTrial],
    champion: Policy,
    objective: float,
    definition: ScorecardDefinition,
) -> list[NearMiss]:
    """The study's near misses not repaired yet, best first. A trial's policy is the
    champion's with the trial's sampled values (a global search samples nothing else)."""
    trials = list(trials)
    repaired = {t.user_attrs[REPAIR_OF] for t in trials if REPAIR_OF in t.user_attrs}
    metric = {g.key: g.metric for g in definition.guardrails}
    found = []
    for t in trials:
        attrs = t.user_attrs
        if (
            t.state != TrialState.COMPLETE
            or t.number in repaired
            or attrs.get("decision") != Decision.ROLLED_BACK
            or not float(attrs.get("violation", 0.0)) > 0
            or not float(attrs.get("objective", -math.inf)) > objective
        ):
            continue
        over = sorted(
            ((amount, key) for key, amount in t.constraints.items() if amount > 0),
            reverse=True,
        )
        broken = tuple(metric[key] for _, key in over if key in metric)
        found.append(
            NearMiss(t.number, float(attrs["objective"]), champion.with_values(t.params), broken)
        )
    return sorted(found, key=lambda m: (-m.objective, m.number))


def repair(
    misses: Iterable[NearMiss], surface: Collection[str]
) -> tuple[NearMiss, Diagnosis] | None:
    """The best near miss some surface parameter can repair, and the move: against the
    failure mode of its worst broken guardrail that a declared parameter can still move."""
    for miss in misses:
        for metric in miss.broken:
            for shortfall in Shortfall:
                if metric not in shortfall.metrics:
                    continue
                moves = moves_against(shortfall, miss.policy, surface)
                if moves:
                    return miss, Diagnosis(shortfall, math.nan, metric, moves)
    return None
