"""Commands about files: policy (validate, show, diff), scenario (validate, list) and inspect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.table import Table

from experiments.cli.common import allow_large_option, bounds, out
from experiments.console.terminal import cell, clean
from policies import InputError, Policy, describe, diff, load_policy
from scenarios import builtin_names


@click.group()
def policy() -> None:
    """Validate, show and compare policy files."""


def _surface_option(command: Any) -> Any:
    return click.option(
        "--agent",
        "agent_kind",
        default=None,
        help="check it against this agent's surface: the whitelist and the parameters of its "
        "own it declares (module:Factory); default: the whitelist",
    )(command)


def _load(path: Path, agent_kind: str | None) -> Policy:
    if agent_kind is None:
        return load_policy(path)
    from harness.agents.registry import resolve

    return resolve(agent_kind).load_policy(path)


@policy.command("validate")
@click.argument("path", type=click.Path(path_type=Path))
@_surface_option
def policy_validate(path: Path, agent_kind: str | None) -> None:
    """Check a policy file against the whitelist, or an agent's surface (--agent)."""
    p = _load(path, agent_kind)
    out.say(f"{path}: ok (policy {p.hash})")


@policy.command("show")
@click.argument("path", type=click.Path(path_type=Path))
@_surface_option
def policy_show(path: Path, agent_kind: str | None) -> None:
    """Every parameter of the surface: its value here, its default and what it means."""
    p = _load(path, agent_kind)
    table = Table(title=cell(f"{path} (policy {p.hash})"))
    for col in ("parameter", "value", "default", "meaning"):
        table.add_column(col)
    for name, value, default, meaning in describe(p):
        table.add_row(
            cell(name),
            cell(value, None if value == default else "bold"),
            cell(default),
            cell(meaning),
        )
    out.show(table)


@policy.command("diff")
@click.argument("a", type=click.Path(path_type=Path))
@click.argument("b", type=click.Path(path_type=Path))
@_surface_option
def policy_diff(a: Path, b: Path, agent_kind: str | None) -> None:
    """The parameters on which two policies differ."""
    pa_, pb = _load(a, agent_kind), _load(b, agent_kind)
    rows = diff(pa_, pb)
    if not rows:
        out.say(f"no difference (both policy {pa_.hash})")
        return
    table = Table()
    for col in ("parameter", clean(a), clean(b)):
        table.add_column(col)
    for name, va, vb in rows:
        table.add_row(cell(name), cell(va), cell(vb))
    out.show(table)


@click.group()
def scenario() -> None:
    """Validate scenario files and list the built-in library."""


@scenario.command("validate")
@click.argument("path", type=click.Path(path_type=Path))
@allow_large_option
def scenario_validate(path: Path, allow_large: bool) -> None:
    """Check a scenario file: schema, every cross-reference, bounds and the actions it names."""
    from harness.engine.validation import load_checked
    from scenarios.checks import cost_problem

    s = load_checked(path, bounds(allow_large))
    problem = cost_problem(s, bounds(allow_large))
    if problem:
        raise InputError(f"{path}: {problem}")
    out.say(
        f"{path}: ok (scenario {s.name}, {len(s.agents)} agents, "
        f"{len(s.truth)} tracked propositions)"
    )


@scenario.command("list")
def scenario_list() -> None:
    """The built-in scenarios, what each tests and its metrics."""
    from harness.engine.validation import load_checked

    table = Table()
    for col in ("scenario", "agents", "what it tests", "metrics"):
        table.add_column(col)
    for name in builtin_names():
        s = load_checked(name)
        table.add_row(
            cell(name),
            cell(len(s.agents)),
            cell(" ".join(s.description.split())),
            cell(", ".join(s.metrics)),
        )
    from scenarios import village

    v = village(25)
    table.add_row(
        cell("village"),
        cell("--agents N"),
        cell("generated (--structure-seed S): " + " ".join(v.description.split())),
        cell(", ".join(v.metrics)),
    )
    out.show(table)


@click.command("inspect")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--scenario", "scenario_name", required=True)
@click.option("--seed", type=int, required=True)
@click.option("--agent", required=True)
@click.option("--tick", type=int, help="default: the end of the episode")
def inspect_agent(
    directory: Path, scenario_name: str, seed: int, agent: str, tick: int | None
) -> None:
    """One agent at one tick, from the traces: state, events, beliefs, retrievals."""
    from experiments.reports.inspect import inspect

    out.show(inspect(directory, scenario_name, seed, agent, tick))
