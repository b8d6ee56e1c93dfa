"""Checking a policy: `gate` (against a committed baseline) and `sweep` (one parameter over
values)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.table import Table

from experiments.cli.common import (
    agent_option,
    budget_options,
    err,
    make_execution,
    mlflow_options,
    out,
    secret_bearing,
    seeds_option,
    store,
    suite_option,
)
from experiments.console.terminal import cell
from policies import InputError, Policy

if TYPE_CHECKING:
    from experiments.evaluation.dispatch import Execution


@click.command()
@click.option(
    "--policy",
    "policy_spec",
    required=True,
    help="a policy file, or 'champion' for the registry's champion",
)
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(path_type=Path),
    help="baseline scorecard (default scorecards/baseline.json; for --suite NAME "
    "baseline_NAME.json beside it)",
)
@click.option("--json", "json_path", type=click.Path(path_type=Path))
@click.option(
    "--junit",
    "junit_path",
    type=click.Path(path_type=Path),
    help="JUnit XML: one case per (scenario, metric) and per guardrail",
)
@click.option(
    "--summary",
    "summary_path",
    type=click.Path(path_type=Path),
    help="markdown summary (also appended to $GITHUB_STEP_SUMMARY when set)",
)
@click.option("--update-baseline", is_flag=True, help="write the baseline from this policy")
@click.option("--workers", type=click.IntRange(min=1))
@click.option("--serial", is_flag=True, help="run episodes in this process, without Ray")
@click.option(
    "--runs-dir",
    type=click.Path(path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="the run store: the champion registry (--policy champion) and the MLflow run this "
    "gate logs",
)
@click.option(
    "--tracking-uri",
    callback=secret_bearing,
    help="MLflow tracking URI to log to (default: the runs folder's SQLite store)",
)
@click.option("--no-mlflow", is_flag=True, help="do not log the gate as an MLflow run")
@agent_option
@budget_options
@suite_option
def gate(
    policy_spec: str,
    baseline_path: Path | None,
    json_path: Path | None,
    junit_path: Path | None,
    summary_path: Path | None,
    update_baseline: bool,
    workers: int | None,
    serial: bool,
    runs_dir: Path,
    tracking_uri: str | None,
    no_mlflow: bool,
    agent_kind: str,
    suite: str | None,
) -> None:
    """Fail (exit 1) when the policy regresses against the committed baseline; exit 3 when
    the baseline was made with another instrument or another agent. Logged as an MLflow run
    (unless --no-mlflow)."""
    from experiments.evaluation.gate import (
        default_baseline,
        load_baseline,
        run_gate,
        write_outputs,
    )
    from scorecards import render_table

    if not update_baseline:  # a damaged baseline is refused before the agent is even loaded
        load_baseline(baseline_path or default_baseline(suite))
    execution = make_execution(serial, workers, agent=agent_kind)
    p = _policy_or_champion(policy_spec, runs_dir, execution)
    result = run_gate(
        p,
        baseline_path or default_baseline(suite),
        execution,
        update_baseline=update_baseline,
        suite_name=suite,
    )
    out.show(render_table(result.evaluation.scorecard, result.comparison))
    write_outputs(result, json_path=json_path, junit_path=junit_path, summary_path=summary_path)
    files = [f for f in (json_path, junit_path, summary_path) if f is not None]
    baseline = baseline_path or default_baseline(suite)
    if json_path:
        from experiments.tracking.command_runs import failures, gate_context
        from scorecards.report import write_reports

        files += write_reports(
            result.evaluation.scorecard,
            result.evaluation.traces,
            json_path.parent,
            comparison=result.comparison,
            title=f"villagelab gate: {policy_spec}",
            context=gate_context(result, policy_spec, baseline),
            failed=failures(result),
        )
    if not no_mlflow and not update_baseline:
        from experiments.tracking.command_runs import log_gate

        uri, artifacts = store(runs_dir, tracking_uri)
        out.say(f"mlflow_run: {log_gate(uri, artifacts, result, policy_spec, baseline, files)}")
    (out if result.code == 0 else err).say(f"gate: {result.message}")
    sys.exit(result.code)


def _policy_or_champion(spec: str, runs_dir: Path, execution: Execution) -> Policy:
    if spec != "champion":
        return execution.choice().load_policy(Path(spec))  # on the agent's surface
    from experiments.promotion.champion import champion_policy

    return champion_policy(runs_dir)


@click.command("sweep")
@click.option(
    "--param", "name", required=True, help="a parameter of the agent's surface (policy show)"
)
@click.option("--values", "values_text", required=True, help="comma-separated, e.g. 0.2,0.5,0.8")
@click.option(
    "--policy",
    "policy_path",
    type=click.Path(path_type=Path),
    help="the policy held fixed otherwise (default: careful.yaml)",
)
@click.option("--scenario", "scenario_names", multiple=True, required=True)
@click.option("--seeds", default="0-4", show_default=True, callback=seeds_option)
@click.option("--serial", is_flag=True, help="run episodes in this process, without Ray")
@agent_option
@budget_options
@mlflow_options
def sweep_command(
    name: str,
    values_text: str,
    policy_path: Path | None,
    scenario_names: tuple[str, ...],
    seeds: tuple[int, ...],
    serial: bool,
    agent_kind: str,
    to_mlflow: bool,
    runs_dir: Path,
    tracking_uri: str | None,
) -> None:
    """One parameter over several values: what it buys on one metric, what it costs on
    another; with --mlflow, a parent run and a child run per value."""
    from experiments.evaluation.evaluate import Instrument
    from experiments.evaluation.sweep import parse_values, sweep

    execution = make_execution(serial, None, agent=agent_kind)
    chosen = execution.choice()
    base = chosen.load_policy(
        policy_path or Path(__file__).resolve().parents[2] / "policies" / "careful.yaml"
    )
    try:
        values = parse_values(name, values_text, base.surface)
    except ValueError as exc:
        raise InputError(f"--values {values_text!r}: {exc}") from None
    instrument = Instrument.load(scenario_names)
    for value in values:
        base.with_values({name: value})  # out of range stops here, before anything is logged
    if name not in chosen.surface:
        raise InputError(
            f"{name!r} is not on the surface of agent {chosen.name!r} (it never reads it): "
            "sweeping it would change nothing"
        )
    log = None
    if to_mlflow:
        from experiments.tracking.command_runs import SweepLog

        log = SweepLog(
            *store(runs_dir, tracking_uri), name, values, str(policy_path or "careful.yaml")
        )
    try:
        points = sweep(
            base,
            name,
            values,
            instrument,
            seeds,
            execution,
            on_point=log.point if log else None,
        )
    except BaseException:
        if log:
            log.finish("FAILED")
        raise
    if log:
        out.say(f"mlflow_run: {log.finish()}")
    out.say(
        f"objective by {name}: "
        + ", ".join(
            f"{p.value}: {'—' if p.objective is None else f'{p.objective:.3f}'}" for p in points
        )
    )
    for scenario in sorted({sc for p in points for sc in p.metrics}):
        metrics = sorted({m for p in points for m in p.metrics.get(scenario, {})})
        table = Table(
            title=cell(f"{scenario} — {name} (the rest as {policy_path or 'careful.yaml'})"),
            title_justify="left",
        )
        table.add_column(name)
        for m in metrics:
            table.add_column(m)
        for p in points:
            row = p.metrics.get(scenario, {})
            table.add_row(cell(p.value), *(f"{row[m]:.3f}" if m in row else "—" for m in metrics))
        out.show(table)
