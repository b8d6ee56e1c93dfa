"""Checking a policy: `gate` (against a committed baseline), `sweep` (one parameter over
values) and `bench` (throughput)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from policies import InputError, load_policy

from ..terminal import cell
from ._common import (
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
    from scorecards import render_table

    from ..gate import default_baseline, run_gate, write_outputs

    p = _policy_or_champion(policy_spec, runs_dir)
    result = run_gate(
        p,
        baseline_path or default_baseline(suite),
        make_execution(serial, workers, agent=agent_kind),
        update_baseline=update_baseline,
        suite_name=suite,
    )
    out.show(render_table(result.evaluation.scorecard, result.comparison))
    write_outputs(result, json_path=json_path, junit_path=junit_path, summary_path=summary_path)
    files = [f for f in (json_path, junit_path, summary_path) if f is not None]
    baseline = baseline_path or default_baseline(suite)
    if json_path:
        from scorecards.report import write_reports

        from ..logbook import failures, gate_context

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
        from ..logbook import log_gate

        uri, artifacts = store(runs_dir, tracking_uri)
        out.say(f"mlflow_run: {log_gate(uri, artifacts, result, policy_spec, baseline, files)}")
    (out if result.code == 0 else err).say(f"gate: {result.message}")
    sys.exit(result.code)


def _policy_or_champion(spec: str, runs_dir: Path):  # type: ignore[no-untyped-def]
    if spec != "champion":
        return load_policy(Path(spec))
    from ..champion import champion_policy

    return champion_policy(runs_dir)


@click.command("sweep")
@click.option("--param", "name", required=True, help="a whitelisted parameter")
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
    from ..evaluation import Instrument
    from ..sweep import parse_values, sweep

    base = load_policy(
        policy_path or Path(__file__).resolve().parents[2] / "policies" / "careful.yaml"
    )
    try:
        values = parse_values(name, values_text)
    except ValueError as exc:
        raise InputError(f"--values {values_text!r}: {exc}") from None
    instrument = Instrument.load(scenario_names)
    for value in values:
        base.with_values({name: value})  # out of range stops here, before anything is logged
    execution = make_execution(serial, None, agent=agent_kind)
    chosen = execution.choice()
    if name not in chosen.surface:
        raise InputError(
            f"{name!r} is not on the surface of agent {chosen.name!r} (it never reads it): "
            "sweeping it would change nothing"
        )
    log = None
    if to_mlflow:
        from ..logbook import SweepLog

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


@click.command()
@click.option(
    "--agents", type=click.IntRange(min=2), default=25, show_default=True, help="the small village"
)
@click.option("--profile", is_flag=True, help="also show where the 1,000-agent day's time goes")
@click.option(
    "--scale",
    is_flag=True,
    help="only the scaling figures: cost per agent-tick at 10, 100 and 1,000 agents, and the "
    "1,000-agent day with its peak memory",
)
@click.option(
    "--large", type=click.IntRange(min=2), default=1000, show_default=True, help="the large village"
)
@click.option(
    "--gate-aa",
    type=click.IntRange(min=0),
    default=0,
    help="also run the gate's A/A check this many times (false-alarm rate)",
)
@click.option(
    "--instrument",
    "instrument_check",
    is_flag=True,
    help="instead: each metric's spread across baseline, careful, the simple agent and two "
    "random policies on the suite (selection seeds); a weighted metric none moves is flagged",
)
@click.option(
    "--scoring",
    is_flag=True,
    help="instead: only the milliseconds to score one episode of each built-in scenario "
    "(CPU and wall, median of 7)",
)
@agent_option
def bench(
    agents: int,
    profile: bool,
    scale: bool,
    large: int,
    gate_aa: int,
    agent_kind: str,
    instrument_check: bool,
    scoring: bool,
) -> None:
    """The performance table in one run: cost per agent-tick against a Mesa rumor model (the
    optional extra villagelab[bench]; skipped without it), scaling from 10 to 1,000 agents,
    the 1,000-agent day (wall, CPU, peak memory), overhead per search trial, Ray against
    serial, scoring per episode. Benchmarks: the load averages are printed beside them."""
    from harness.agents.registry import resolve

    from .. import bench as b
    from ..bench_models import mesa_available, mesa_rumor, plain_rumor

    agent = resolve(agent_kind).path  # a bad --agent stops here, before anything runs
    if instrument_check:
        from ..instrument import show_instrument

        show_instrument(out, lambda a: make_execution(False, None, agent=a))
        return
    out.say(f"load_before: {b.load()}")
    if scoring:
        table = Table(title="villagelab bench --scoring", title_justify="left")
        for column in ("figure", "goal", "measured"):
            table.add_column(column)
        _scoring_row(out, table, b.scoring_ms(agent))
        out.show(table)
        out.say(f"load_after: {b.load()}")
        return
    if gate_aa:
        from ..gate import aa_check

        careful = load_policy(Path(__file__).resolve().parents[2] / "policies" / "careful.yaml")
        alarms, repeats = aa_check(careful, gate_aa, make_execution(True, None, agent=agent_kind))
        out.say(f"gate.aa_false_alarms: {alarms} of {repeats} ({alarms / repeats:.1%})")
    mesa = mesa_available()
    if mesa is None:
        err.say("mesa: not installed (pip install 'villagelab[bench]'); its column is skipped")
    table = Table(title="villagelab bench", title_justify="left")
    for column in ("figure", "goal", "measured"):
        table.add_column(column)
    small = [n for n in (10, 100) if n < large] if scale else [10, agents]
    costs = {}
    ours, theirs = [], []
    for _ in range(5):  # ours and the yardstick interleaved, the lowest of five taken
        for n in sorted(set(small)):
            c = b.village_cost(n, agent=agent)
            costs[n] = min(costs.get(n, c), c, key=lambda x: x.cpu)
        if not scale:
            ours.append(costs[agents].us_per_agent_tick)
            theirs.append((mesa_rumor if mesa else plain_rumor)(agents, costs[agents].ticks) * 1e6)
    day = b.village_apart(large, agent=agent)
    costs[large] = day
    for n, c in sorted(costs.items()):
        out.say(
            f"village.{n}.us_per_agent_tick: {c.us_per_agent_tick:.2f} "
            f"(cpu {c.cpu:.2f} s, wall {c.wall:.2f} s, {c.chats:.1f} chats per agent)"
        )
    ratio = day.us_per_agent_tick / costs[10].us_per_agent_tick
    if not scale:
        yardstick = f"Mesa {mesa}" if mesa else "plain Python (no Mesa here)"
        mine, other = min(ours), min(theirs)
        table.add_row(
            f"µs per agent-tick, {agents}-agent day vs {yardstick}",
            "≤ 3×",
            f"{mine:.2f} vs {other:.2f} µs = {mine / other:.2f}×",
        )
        out.say(f"yardstick.{agents}.us_per_agent_step: {other:.2f} ({yardstick})")
    table.add_row(
        f"cost per agent-tick, {large} ÷ 10 agents",
        "≤ 1.5×",
        f"{ratio:.2f}× (chats per agent a day: {costs[10].chats:.1f} at 10, "
        f"{day.chats:.1f} at {large})",
    )
    table.add_row(
        f"{large}-agent village, one day, one core",
        "≤ 60 s, ≤ 1 GB",
        f"{day.wall:.1f} s wall, {day.cpu:.1f} s CPU, {day.peak_mb:.0f} MB peak",
    )
    if not scale:
        trials = 5
        trial = b.trial_overhead(trials, agent=agent_kind)
        out.say("trial." + ", ".join(f"{k}: {v:.3f} s" for k, v in trial.items()))
        tune = b.tune_overhead()
        if tune is None:
            err.say("ray[tune]: not installed (pip install 'villagelab[bench]'); no yardstick")
        else:
            out.say(f"tune.seconds_per_trial: {tune:.3f} (OptunaSearch, reuse_actors)")
        against = "" if tune is None else f"; Ray Tune {tune * 1000:.0f} ms"
        table.add_row(
            "overhead per serial search trial (all but simulation)",
            "≤ 60 ms",
            f"{trial['but_simulation'] * 1000:.0f} ms a trial to the next "
            f"({trial['on_clock'] * 1000:.0f} on its own clock: scoring "
            f"{trial.get('scoring', 0) * 1000:.0f}, optuna {trial.get('optuna', 0) * 1000:.0f}, "
            f"mlflow {trial.get('mlflow', 0) * 1000:.0f} ms{against}; promotion apart: "
            f"{trial.get('promotion', 0):.1f} s in {trial['promoted']:.0f} of {trials} trials)",
        )
        ray = b.ray_speedup()
        out.say("ray." + ", ".join(f"{k}: {v:.2f} s" for k, v in ray.items()))
        table.add_row(
            "Ray 2 workers vs serial, 200-agent village day × 4 seeds",
            "≥ 1.8×",
            f"{ray['serial'] / ray['ray']:.2f}× without start-up, "
            f"{ray['serial'] / (ray['ray'] + ray['ray_startup']):.2f}× with",
        )
        _scoring_row(out, table, b.scoring_ms(agent))
    out.show(table)
    out.say(f"load_after: {b.load()}")
    if profile:
        out.say(b.village_profile(large, agent=agent))


def _scoring_row(out: Any, table: Any, scored: dict[str, Any]) -> None:
    """One line per scenario and the table's row: the CPU milliseconds to score an episode."""
    for name, cost in scored.items():
        out.say(
            f"scoring.{name}: cpu {cost.cpu_ms:.1f} ms, wall {cost.wall_ms:.1f} ms "
            f"({cost.rows} rows)"
        )
    cpu = [c.cpu_ms for c in scored.values()]
    table.add_row(
        "scoring one episode (built-in scenarios, seed 0; CPU, median of 7)",
        "≤ 5 ms",
        f"{min(cpu):.1f}–{max(cpu):.1f} ms",
    )
