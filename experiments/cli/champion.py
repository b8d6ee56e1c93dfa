"""`villagelab champion`: the champion in the MLflow registry (show, history, rollback, export)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from experiments.cli.common import out, runs_option, uri_option
from experiments.console.terminal import cell
from policies import InputError


@click.group()
def champion() -> None:
    """The champion in the MLflow registry: show, history, rollback, export."""


def _registry(runs_dir: Path, tracking_uri: str | None):  # type: ignore[no-untyped-def]
    from experiments.promotion.champion import Registry, tracking_uri_for

    if tracking_uri is None and not (runs_dir / "mlflow.db").exists():
        raise InputError(
            f"{runs_dir}: no run store (mlflow.db); run 'villagelab search' "
            "first or give --runs-dir"
        )
    return Registry(tracking_uri_for(runs_dir, tracking_uri))


@champion.command("show")
@runs_option
@uri_option
def champion_show(runs_dir: Path, tracking_uri: str | None) -> None:
    """The current champion: version, study, trial, objective and its policy."""
    registry = _registry(runs_dir, tracking_uri)
    number, policy = registry.policy()
    v = next(v for v in registry.history() if v.version == number)
    out.say(
        f"champion: version {v.version}\nstudy: {v.study}\ntrial: {v.trial}\n"
        f"objective: {v.objective}\npolicy: {v.policy_hash}\n"
        f"replaced: {v.previous}\nsource: {v.source}"
    )
    out.say(policy.to_yaml())


@champion.command("history")
@runs_option
@uri_option
def champion_history(runs_dir: Path, tracking_uri: str | None) -> None:
    """Every registered version, the champion marked."""
    table = Table()
    for col in ("version", "champion", "study", "trial", "objective", "policy", "replaced"):
        table.add_column(col)
    for v in _registry(runs_dir, tracking_uri).history():
        table.add_row(
            *map(
                cell,
                (
                    v.version,
                    "←" if v.current else "",
                    v.study,
                    v.trial,
                    "" if v.objective is None else f"{v.objective:.4f}",
                    v.policy_hash,
                    "" if v.previous is None else v.previous,
                ),
            )
        )
    out.show(table)


@champion.command("rollback")
@click.option(
    "--to",
    "to_version",
    type=int,
    help="the version to make champion again (default: the one the champion replaced)",
)
@runs_option
@uri_option
def champion_rollback(to_version: int | None, runs_dir: Path, tracking_uri: str | None) -> None:
    """Move the alias back."""
    old, new = _registry(runs_dir, tracking_uri).rollback(to_version)
    out.say(f"champion: version {old} → version {new}")


@champion.command("export")
@click.argument("path", type=click.Path(path_type=Path))
@runs_option
@uri_option
def champion_export(path: Path, runs_dir: Path, tracking_uri: str | None) -> None:
    """Write the champion's policy as a YAML file."""
    from villagelab.files import atomic_write_bytes

    number, policy = _registry(runs_dir, tracking_uri).policy()
    atomic_write_bytes(path, policy.to_yaml().encode())
    out.say(f"champion version {number} (policy {policy.hash}) → {path}")
