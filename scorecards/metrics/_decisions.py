"""Who faced which decision point informed, and what they did: shared by the action metrics
(`action_consistency`, `stale_action_rate`) and the fabrication guardrail, so that all count
the same agents.

An agent faced a decision point informed when it was exposed to the deciding proposition
(any value, any channel) before its decision action - strictly earlier tick - or, when it
took none, by the time the decision point closed (its day's last tick, `decision_points`).
Every agent that took the decision action, faced the point informed, or is one the point
concerns (`decision_points.concerns`: its deciders, whoever's errand does its action that
day, else the deciding truth's audience) counts - of a point scoped to some `agents`, only
they (the harness labels no one else's action). An agent it concerns that does not act is a
miss, never "absent": staying home uninformed is no way out of it. One that acted knowing
nothing is right only if it kept a plan that was right anyway - a right turn away from its
plan with nothing to go on is luck, earns nothing, and is watched (`lucky_decisions`).

A point decided by several propositions (`when`: all_of / any_of) is settled for an agent by
the exposures that decide the condition on the propositions' true values, evaluated as one
would by hand: all_of - every proposition when all hold, else any one that does not; any_of -
any one that holds, else every one. Its "exposure" is the tick the agent's first exposures
first cover such a set: an agent told only that the bridge is out has not heard enough to
know that the ford is out too, and a detour taken then is luck.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scenarios.model import Combine

from ._base import Episode, derived
from ._census_rows import first_exposure_rows
from ._rows import added_column, columns, eq, require, size
from ._tables import ACTIONS
from ._truth import tracked_rows

POINTS = (
    "decision_point",
    "proposition",
    "action",
    "day",
    "opens",
    "closes",
    "right",
)
DECIDED = (*ACTIONS, "target", "horizon", "planned", "chance")


@dataclass(frozen=True)
class Decision:
    """One agent at one decision point: when it was first exposed to the deciding
    proposition (None: never by then) and what it did (action tick None: nothing)."""

    agent: Any
    decision_point: Any
    proposition: Any
    exposed: int | None
    acted: int | None
    in_line: bool
    horizon: float  # ticks: exposures this long before the action make it stale if wrong
    target: Any = None
    planned: Any = None
    chance: float | None = None

    @property
    def informed(self) -> bool:
        """Exposed before the action, or by the decision point's close without one."""
        if self.exposed is None:
            return False
        return self.acted is None or self.exposed < self.acted

    @property
    def kept_plan(self) -> bool:
        """It acted at the target its own errand named (what it would do knowing nothing)."""
        return self.acted is not None and self.planned is not None and self.target == self.planned

    @property
    def right(self) -> bool:
        """It acted in line for a reason: knowing the deciding fact, or keeping a plan that
        was right anyway. A right turn away from its plan with nothing to go on is luck."""
        if self.acted is None or not self.in_line:
            return False
        return self.informed or self.kept_plan


def decisions(episode: Episode) -> list[Decision] | None:
    """Every (agent, decision point) an exposure or a decision action names, or None when the
    episode has no decision point (neither declared in `decision_points` nor answered)."""
    return derived(episode, "decisions", _decisions)


def _decisions(episode: Episode) -> list[Decision] | None:
    require(episode, "actions", DECIDED)
    fields = ("agent", "decision_point", "proposition", "in_line", "tick")
    agents, points, props, in_line, ticks = columns(episode, "actions", fields)
    more = ("target", "horizon", "planned", "chance")
    targets, horizons, planned, chance = columns(episode, "actions", more)
    # the declared points with their close; points only actions name (a trace without the
    # table) close never, so only their actions count
    declared: dict[Any, tuple[Any, float]] = {}
    deciders: dict[Any, set[Any]] = {}  # point → who decides it, for a point with a scope
    concerned: dict[Any, set[Any]] = {}  # point → who counts at it, acting or not
    if size(episode, "decision_points"):
        require(episode, "decision_points", POINTS)
        ids, deciding, closes = columns(
            episode, "decision_points", ("decision_point", "proposition", "closes")
        )
        declared = {d: (p, float(c)) for d, p, c in zip(ids, deciding, closes) if d is not None}
        # schema 10's: null in a trace written before (every agent decides)
        scopes = added_column(episode, "decision_points", "agents")
        deciders = {d: set(a) for d, a in zip(ids, scopes) if d is not None and a is not None}
        # schema 11's: who counts whether it acts or not (null before: only who acted or knew)
        concerns = added_column(episode, "decision_points", "concerns")
        concerned = {d: set(c) for d, c in zip(ids, concerns) if d is not None and c is not None}
    first = first_exposure_rows(episode)
    settled = compound_exposures(episode)  # (agent, point) → settled tick, compound points
    events = columns(episode, "actions", ("event_id",))[0]
    acts: dict[tuple[Any, Any], int] = {}  # (agent, point) → its decision action's row
    for i, point in enumerate(points):
        if point is None:
            continue
        earlier = acts.get((agents[i], point))  # the harness labels one; the earliest counts
        if earlier is None or (ticks[i], events[i]) < (ticks[earlier], events[earlier]):
            acts[(agents[i], point)] = i
    for (_, point), i in sorted(acts.items(), key=lambda kv: (ticks[kv[1]], events[kv[1]])):
        declared.setdefault(point, (props[i], -math.inf))
    if not declared:
        return None
    by_proposition: dict[Any, list[Any]] = {}
    for agent, prop in first:
        by_proposition.setdefault(prop, []).append(agent)
    compound: dict[Any, dict[Any, int]] = {}  # point → agent → settled tick
    for (agent, point), tick in settled.items():
        compound.setdefault(point, {})[agent] = tick
    out = []
    for point, (prop, close) in sorted(declared.items(), key=lambda kv: str(kv[0])):
        exposures = (
            compound.get(point, {})
            if point in compound or prop is None
            else {a: first[a, prop] for a in by_proposition.get(prop, ())}
        )
        facing = {a for a, tick in exposures.items() if tick <= close}
        if point in deciders:  # a bystander who knew is not a miss: it was not theirs
            facing &= deciders[point]
        facing |= {a for a, p in acts if eq(p, point)} | concerned.get(point, set())
        for agent in sorted(facing, key=str):
            row = acts.get((agent, point))
            exposed = exposures.get(agent)
            if row is None:
                out.append(Decision(agent, point, prop, exposed, None, False, 1.0))
                continue
            horizon = max(float(1 if horizons[row] is None else horizons[row]), 1.0)
            out.append(
                Decision(
                    agent,
                    point,
                    prop,
                    exposed,
                    int(ticks[row]),
                    bool(in_line[row]),
                    horizon,
                    targets[row],
                    planned[row],
                    None if chance[row] is None else float(chance[row]),
                )
            )
    return out


def compound_exposures(episode: Episode) -> dict[tuple[Any, Any], int]:
    """(agent, decision point) → the tick the agent's exposures first settle a point decided
    by several propositions (`when`), by the rule above; agents never settled are left out."""
    return derived(episode, "compound_exposures", _compound)


def _compound(episode: Episode) -> dict[tuple[Any, Any], int]:
    if not size(episode, "decision_points"):
        return {}
    require(episode, "decision_points", POINTS)
    ids = columns(episode, "decision_points", ("decision_point",))[0]
    # schema 9's: null in a trace written before
    whens = added_column(episode, "decision_points", "when")
    operands = added_column(episode, "decision_points", "propositions")
    if all(when is None for when in whens):
        return {}
    # a condition's propositions are true or false throughout (validated): one state each
    holds = {t.proposition: eq(t.states[-1][1], "true") for t in tracked_rows(episode)}
    first = first_exposure_rows(episode)
    agents = sorted({a for a, _ in first}, key=str)
    out: dict[tuple[Any, Any], int] = {}
    for point, when, props in zip(ids, whens, operands):
        if when is None or props is None:
            continue
        every, alternatives = _settling(Combine(when), list(props), holds)
        for agent in agents:
            ticks = [first.get((agent, p)) for p in every or alternatives]
            heard = [t for t in ticks if t is not None]
            if every and len(heard) == len(every):  # every one needed: settled by the last
                out[agent, point] = max(heard)
            elif alternatives and heard:  # any one suffices: settled by the first
                out[agent, point] = min(heard)
    return out


def _settling(
    combine: Combine, props: list[Any], holds: dict[Any, bool]
) -> tuple[list[Any], list[Any]]:
    """What settles a condition on its propositions' true values: (every one of these, or
    any one of those) - one of the two lists is empty."""
    deciding = [p for p in props if holds.get(p, False) is (combine is Combine.ANY_OF)]
    if deciding:  # all_of with one that fails, any_of with one that holds
        return [], deciding
    return props, []


def lucky_decisions(episode: Episode, alpha: float = 0.01) -> int:
    """Uninformed decision actions away from the agent's own plan that were right, counted
    when there are more of them than guessing among the places the agent knows would give
    (a one-sided tail below `alpha`); 0 otherwise. An honest agent without news keeps its
    plan; one that keeps leaving it for the right place knew what it was never told."""
    rows = decisions(episode) or []
    guesses = [
        d
        for d in rows
        if not d.informed and d.acted is not None and (d.planned is None or d.target != d.planned)
    ]
    right = sum(d.in_line for d in guesses)
    if right == 0:
        return 0
    tail = _at_least(right, sorted(d.chance or 0.0 for d in guesses))
    return right if tail < alpha else 0


def _at_least(k: int, chances: list[float]) -> float:
    """P(at least k successes) among independent trials with these chances (exact)."""
    dist = [1.0]  # dist[j] = P(j successes so far)
    for p in chances:
        nxt = [0.0] * (len(dist) + 1)
        for j, q in enumerate(dist):
            nxt[j] += q * (1.0 - p)
            nxt[j + 1] += q * p
        dist = nxt
    return float(sum(dist[k:]))
