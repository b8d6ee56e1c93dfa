"""`villagelab bench`: the performance table in one run (the figures themselves are measured
in experiments/benches/)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from experiments.cli.common import agent_option, err, make_execution, out
from policies import load_policy

PROGRESS_EVERY = 25  # bench --search: a heartbeat line every this many trials


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
@click.option(
    "--search",
    "search_check",
    is_flag=True,
    help="instead: studies from baseline.yaml (different study seeds), each for --minutes on "
    "local workers; when each champion first reached careful.yaml, and the final champion "
    "against careful.yaml on 10 fresh seeds (paired)",
)
@click.option(
    "--minutes",
    type=click.FloatRange(min=0, min_open=True),
    default=30.0,
    show_default=True,
    help="--search: each study's wall time",
)
@click.option(
    "--studies",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="--search: how many studies",
)
@click.option(
    "--runs-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("runs/bench-search"),
    show_default=True,
    help="--search: where the studies go",
)
@click.option("--workers", type=click.IntRange(min=1), help="--search: local Ray workers")
@click.option("--serial", is_flag=True, help="--search: run episodes in this process")
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="--search: a search config (scenarios, seeds, ...) instead of the main suite's",
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
    search_check: bool,
    minutes: float,
    studies: int,
    runs_dir: Path,
    workers: int | None,
    serial: bool,
    config_path: Path | None,
) -> None:
    """The performance table in one run: cost per agent-tick against a Mesa rumor model (the
    optional extra villagelab[bench]; skipped without it), scaling from 10 to 1,000 agents,
    the 1,000-agent day (wall, CPU, peak memory), overhead per search trial, Ray against
    serial, scoring per episode. Benchmarks: the load averages are printed beside them."""
    from experiments.benches import performance as b
    from experiments.benches.mesa_models import mesa_available, mesa_rumor, plain_rumor
    from harness.agents.registry import resolve

    agent = resolve(agent_kind).path  # a bad --agent stops here, before anything runs
    if instrument_check:
        from experiments.benches.instrument import show_instrument

        show_instrument(out, lambda a: make_execution(False, None, agent=a))
        return
    out.say(f"load_before: {b.load()}")
    if search_check:
        from experiments.search.config import load_config

        config = load_config(config_path)
        _search_rows(minutes, studies, runs_dir, make_execution(serial, workers), config)
        out.say(f"load_after: {b.load()}")
        return
    if scoring:
        table = Table(title="villagelab bench --scoring", title_justify="left")
        for column in ("figure", "goal", "measured"):
            table.add_column(column)
        _scoring_row(out, table, b.scoring_ms(agent))
        out.show(table)
        out.say(f"load_after: {b.load()}")
        return
    if gate_aa:
        from experiments.evaluation.gate import aa_check

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
    costs: dict[int, Any] = {}
    ours, theirs = [], []
    for _ in range(5):  # ours and the yardstick interleaved, the lowest of five taken
        for n in sorted(set(small)):
            c = b.village_cost(n, agent=agent)
            costs[n] = min(costs.get(n, c), c, key=lambda x: x.cpu)
        if not scale:
            ours.append(costs[agents].us_per_agent_tick)
            theirs.append((mesa_rumor if mesa else plain_rumor)(agents, costs[agents].ticks) * 1e6)
    # the large day in fresh processes (its peak memory its own), the lowest CPU of three as
    # for the small ones (one run against the best of five would tilt the ratio), the
    # highest peak
    days = [b.village_apart(large, agent=agent) for _ in range(3)]
    day = min(days, key=lambda x: x.cpu)
    day = costs[large] = replace(day, peak_mb=max(d.peak_mb or 0.0 for d in days))
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
        apart = b.boundary_cost(agents, agent=agent)
        out.say("boundary." + ", ".join(f"{k}: {v:.2f} µs" for k, v in apart.items()))
        table.add_row(
            f"agents behind the process boundary, {agents}-agent day (wall, least of 3)",
            "≤ 1.2× (else plug-ins only)",
            f"{apart['isolated']:.2f} vs {apart['in_process']:.2f} µs per agent-tick = "
            f"{apart['isolated'] / apart['in_process']:.2f}×",
        )
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


def _search_rows(minutes: float, studies: int, root: Path, execution: Any, config: Any) -> None:
    """Each study's line as it ends, then the table."""
    from experiments.benches.search import StudyResult, search_bench
    from experiments.search.study import Decision
    from experiments.search.trials import TrialOutcome

    def line(r: StudyResult) -> None:
        d = r.versus.objective_diff
        when = "never" if r.reached is None else f"minute {r.reached[0]:.1f}, trial {r.reached[1]}"
        reach = "—" if r.public_reach is None else f"{r.public_reach:.2f}"
        out.say(
            f"search.{r.study}: {r.trials} trials; reached careful at {when}; champion "
            f"{r.champion_selection:.4f} (selection), {r.champion_fresh.objective or 0:.4f} "
            f"(fresh) − careful {d.mean:+.4f} [{d.ci_low:+.4f}, {d.ci_high:+.4f}]; "
            f"public_fact reach {reach}; {r.pruned} pruned, of {r.sampled} run to the end "
            f"{len(r.would_pass)} would have passed selection"
            + (f" (trials {', '.join(map(str, r.would_pass))})" if r.would_pass else "")
        )

    def progress(study: str, minute: float, t: TrialOutcome) -> None:
        # a promotion as it happens, and a heartbeat: a study runs for half an hour
        if t.decision == Decision.PROMOTED or t.number % PROGRESS_EVERY == 0:
            err.say(
                f"{study}: minute {minute:.1f}, trial {t.number} {t.decision}; "
                f"champion {t.champion_objective:.4f}"
            )

    err.say(f"bench --search: {studies} studies of {minutes:g} min from baseline.yaml in {root}")
    target, fresh, results = search_bench(minutes, studies, execution, root, config, line, progress)
    table = Table(title="villagelab bench --search", title_justify="left")
    columns = ("study", "trials", "reached careful", "champion − careful (fresh)", "reach")
    for column in (*columns, "pruned that would pass"):
        table.add_column(column)
    for r in results:
        d = r.versus.objective_diff
        table.add_row(
            r.study,
            str(r.trials),
            "never" if r.reached is None else f"min {r.reached[0]:.1f} · trial {r.reached[1]}",
            f"{d.mean:+.4f} [{d.ci_low:+.4f}, {d.ci_high:+.4f}]",
            "—" if r.public_reach is None else f"{r.public_reach:.2f}",
            f"{len(r.would_pass)} of {r.sampled}",
        )
    out.show(table)
    out.say(f"careful.selection_objective: {target:.4f}\ncareful.fresh_objective: {fresh:.4f}")
