"""What a search samples: the agent's policy surface less what acts for no agent of the suite,
thresholds only under their switches, and a policy drawn from it (whole ranges, or around the
champion in local mode)."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Sequence
from typing import Any, cast

import optuna

from harness.agents.registry import AgentChoice
from policies import BUILTIN, BY_NAME, WHITELIST, InputError, Param, Policy, Surface
from policies.policy import Value
from policies.purposes import Role
from scenarios.model import Scenario
from scenarios.suite import load_suite, suite_path


def roles_in(scenarios: Iterable[Scenario]) -> frozenset[Role]:
    """Whom the scenarios' agents are: villagers, characters who talk with a person, or both."""
    return frozenset(
        Role.CHARACTER if spec.companion is not None else Role.VILLAGER
        for scenario in scenarios
        for spec in scenario.agents
    )


def searched(
    agent: AgentChoice, scenarios: Iterable[Scenario], unscored: Collection[str] = ()
) -> tuple[tuple[str, ...], str]:
    """The parameters a search samples for `agent` on `scenarios`: its policy surface, less
    what acts for no agent the scenarios hold and what no scenario scores (`unscored`, the
    suite's declaration), and a line saying so; an agent that reads none cannot be
    searched."""
    if not agent.surface:
        raise InputError(
            f"--agent {agent.name!r} reads no whitelisted parameter (its policy_surface is "
            "empty): a search has nothing to change"
        )
    roles = roles_in(scenarios)
    acting = set(acting_for(roles, agent.policy_surface))
    surface = tuple(name for name in agent.surface if name in acting)
    idle = len(agent.surface) - len(surface)
    kept = tuple(name for name in surface if name in unscored)
    surface = tuple(name for name in surface if name not in unscored)
    if not surface:
        raise InputError(
            f"--agent {agent.name!r} reads no whitelisted parameter that acts for "
            f"{_roles(roles)} agents, whom these scenarios hold: a search has nothing to change"
        )
    unused = ""
    if idle:
        unused = f"; {idle} it reads act for no {_roles(roles)} agent and are not searched"
    them = "it" if len(kept) == 1 else "them"
    unscoring = f"; {', '.join(kept)}: no scenario of the suite scores {them}, not searched"
    unused += unscoring if kept else ""
    if not agent.declared:
        return surface, (
            f"agent {agent.name!r} declares no policy_surface: searching the {len(surface)} of "
            f"{len(WHITELIST)} whitelisted parameters that act for {_roles(roles)} agents"
            f"{unscoring if kept else ''} (docs/agents.md)"
        )
    own = f", {len(agent.own)} of them its own" if agent.own else ""
    return surface, (
        f"searching the {len(surface)} parameters agent {agent.name!r} reads{own}{unused}; the "
        f"others keep the champion's values"
    )


def unscored_on(suite: str | None, scenarios: Sequence[str]) -> tuple[str, ...]:
    """What the suite declares no scenario of it scores, when the search runs only the
    suite's scenarios (a scenario of one's own may score it); each a whitelisted name."""
    path = suite_path(suite)
    declared = load_suite(path)
    for i, name in enumerate(declared.unscored):
        if name not in BY_NAME:
            raise InputError(
                f"{path}: unscored[{i}]: {name!r} is not a whitelisted parameter; "
                "expected a name like trust.learning_rate ('villagelab policy show' lists them)"
            )
    return declared.unscored if set(scenarios) <= set(declared.scenarios) else ()


def _roles(roles: frozenset[Role]) -> str:
    return " or ".join(sorted(r.value for r in roles))


def sample(
    trial: optuna.trial.BaseTrial,
    mode: str,
    champion: Policy,
    step: float,
    flips: int,
    surface: Collection[str],
) -> Policy:
    """A policy from the champion's surface: the whole ranges (global, pareto), or around the
    champion (local): numbers within ± step of their range, at most `flips` bools or
    categories changed. Only the agent's `surface` is sampled; a parameter it never reads
    keeps the champion's value (sampling it would only add noise to the sampler's model), and
    so does one whose switch (`requires`, sampled before it) is off (define-by-run)."""
    params = champion.surface.params  # the whitelist and the agent's own parameters
    values: dict[str, Any] = {p.name: champion[p.name] for p in params}
    searched = [p for p in params if p.name in surface]
    wanted = [
        p.name
        for p in searched
        if mode == "local"
        and p.kind in ("bool", "categorical")
        and trial.suggest_categorical(f"flip:{p.name}", [False, True])
    ]
    # more flips wanted than allowed: keep `flips` of them, chosen by a per-trial digest so
    # that no parameter is favoured by its place in the whitelist
    keep = set(
        sorted(
            wanted,
            key=lambda n: hashlib.blake2b(f"{trial.number}|{n}".encode(), digest_size=8).digest(),
        )[:flips]
    )
    for p in searched:
        if p.requires is not None and not values[p.requires]:
            continue  # it acts only under its switch, which is off: nothing to sample
        if mode != "local":
            values[p.name] = _suggest(trial, p.name, p)
            continue
        if p.kind in ("int", "float"):
            low, high = cast(float, p.low), cast(float, p.high)  # a number has both bounds
            # grid points within ± step of the range around the champion's (snapped) value,
            # at least one grid point either way
            at = p.on_grid(cast(float, champion[p.name]))
            cells = max(1, int((high - low) * step / p.spacing + 1e-9))  # 0.3 / 0.1 is 2.99…
            lo = p.on_grid(max(low, at - cells * p.spacing))
            hi = p.on_grid(min(high, at + cells * p.spacing))
            values[p.name] = (
                trial.suggest_int(p.name, int(lo), int(hi))
                if p.kind == "int"
                else trial.suggest_float(p.name, lo, hi, step=p.spacing)
            )
        else:
            options: list[Value] = [False, True] if p.kind == "bool" else list(p.choices)
            current = champion[p.name]
            values[p.name] = (
                options[(options.index(current) + 1) % len(options)] if p.name in keep else current
            )
    return Policy(values, champion.surface)


def _suggest(trial: optuna.trial.BaseTrial, name: str, p: Param) -> Any:
    if p.kind == "bool":
        return trial.suggest_categorical(name, [False, True])
    if p.kind in ("int", "float"):
        low, high = cast(float, p.low), cast(float, p.high)  # a number has both bounds
        if p.kind == "int":
            return trial.suggest_int(name, int(low), int(high))
        return trial.suggest_float(name, low, high, step=p.spacing)
    return trial.suggest_categorical(name, list(p.choices))


def acting_for(roles: frozenset[Role] | set[Role], surface: Surface = BUILTIN) -> tuple[str, ...]:
    """The parameters of a surface, in its order, that act for an agent in one of `roles`."""
    return tuple(p.name for p in surface.params if p.acts_for & roles)
