"""Running episodes and scoring their traces: `run` and `score`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from experiments.cli.common import (
    TRACES_URI_HELP,
    agent_option,
    allow_large_option,
    bounds,
    budget_options,
    err,
    exit_on_broken_guardrail,
    make_execution,
    mlflow_options,
    model_usage_lines,
    out,
    seeds_option,
    store,
    suite_option,
    suite_scenarios,
    traces_uri_option,
    write_card,
)
from villagelab.safe_text import redact


@click.command()
@click.option(
    "--scenario",
    "scenario_names",
    multiple=True,
    help="a built-in scenario name or a path (repeatable)",
)
@suite_option
@click.option("--policy", "policy_path", required=True, type=click.Path(path_type=Path))
@click.option("--seeds", default="0-4", show_default=True, callback=seeds_option)
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path))
@click.option("--workers", type=click.IntRange(min=1), help="Ray workers (default: all cores)")
@click.option("--serial", is_flag=True, help="run in this process, without Ray")
@click.option(
    "--json",
    "json_path",
    type=click.Path(path_type=Path),
    help="also write the scorecard JSON here",
)
@agent_option
@click.option(
    "--agents",
    type=click.IntRange(min=2),
    default=25,
    show_default=True,
    help="agents in the generated 'village' scenario",
)
@click.option(
    "--structure-seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="the generated village's structure seed (part of its identity)",
)
@click.option(
    "--hours",
    type=click.IntRange(min=1),
    default=48,
    show_default=True,
    help="how long the generated 'village' scenario lasts (simulated hours)",
)
@click.option("--ray-address", help="attach to a running Ray cluster (e.g. 127.0.0.1:6379)")
@click.option("--traces-uri", callback=traces_uri_option, help=TRACES_URI_HELP)
@click.option(
    "--repair",
    is_flag=True,
    help="run again the episodes of OUT whose trace files are missing, damaged or not the ones "
    "the manifest recorded (the others are kept)",
)
@budget_options
@allow_large_option
@mlflow_options
def run(
    scenario_names: tuple[str, ...],
    suite: str | None,
    policy_path: Path,
    seeds: tuple[int, ...],
    out_dir: Path,
    workers: int | None,
    serial: bool,
    json_path: Path | None,
    agent_kind: str,
    agents: int,
    structure_seed: int,
    hours: int,
    ray_address: str | None,
    traces_uri: str | None,
    repair: bool,
    allow_large: bool,
    to_mlflow: bool,
    runs_dir: Path,
    tracking_uri: str | None,
) -> None:
    """Run scenario × seed episodes, write Parquet traces to OUT (or --traces-uri) and score
    them; the manifest goes to OUT. Exits 1 when the scorecard breaks a guardrail (all is
    written all the same), 2 when an episode did not finish."""
    from experiments.console.progress import episode_progress
    from experiments.evaluation.evaluate import Instrument, evaluate
    from scorecards import render_table

    execution = make_execution(serial, workers, ray_address, agent_kind, traces_uri)
    # bad input stops here, before anything runs: the agent, and the policy on its surface
    p = execution.choice().load_policy(policy_path)
    instrument = Instrument.load(
        suite_scenarios(suite) + scenario_names,
        agents=agents,
        structure_seed=structure_seed,
        hours=hours,
        bounds=bounds(allow_large),
        suite=suite,
    )
    total = len(instrument.scenarios) * len(seeds)
    with episode_progress(err, total) as advance:
        evaluation = evaluate(
            p, instrument, seeds, execution, out=out_dir, on_done=advance, repair=repair
        )
    out.show(render_table(evaluation.scorecard))
    reports: list[Path] = []
    if json_path:
        from experiments.tracking.command_runs import context

        reports = write_card(
            evaluation.scorecard,
            evaluation.load_traces(),
            json_path,
            title=f"villagelab run: {policy_path}",
            context=context(str(policy_path), evaluation),
            scenarios=instrument.scenarios,
        )
    if to_mlflow:
        from experiments.tracking.command_runs import log_run

        uri, artifacts = store(runs_dir, tracking_uri)
        out.say(f"mlflow_run: {log_run(uri, artifacts, evaluation, policy_path, out_dir, reports)}")
    bad = evaluation.problems
    for r in evaluation.records:
        if r.retried and r.status == "ok":
            err.say(
                f"episode {r.scenario}/{r.seed}: ran twice; the first worker was lost "
                f"({r.retried})",
                style="yellow",
            )
    for r in bad:
        err.say(f"episode {r.scenario}/{r.seed}: {r.status}: {r.error}", style="red")
    if evaluation.repaired:
        err.say(
            f"repaired: {len(evaluation.repaired)} damaged episodes run again ("
            + ", ".join(f"{sc}/{seed}" for sc, seed in evaluation.repaired)
            + ")"
        )
    if evaluation.resumed:
        err.say(
            f"resumed: {evaluation.resumed} of {total} episodes were already written in {out_dir}"
        )
    from harness.engine.store import join_uri

    traces = redact(join_uri(traces_uri, "traces")) if traces_uri else out_dir / "traces"
    out.say(
        f"traces: {traces}\nmanifest: {out_dir}/manifest.json\n"
        f"episodes: {total - len(bad)} ok, {len(bad)} not ok"
    )
    usage = model_usage_lines(evaluation.records, execution.choice())
    if usage:
        out.say("\n".join(f"{k}: {v}" for k, v in usage.items()))
    if bad:
        sys.exit(2)
    exit_on_broken_guardrail(evaluation.scorecard)


@click.command()
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--json", "json_path", type=click.Path(path_type=Path))
@click.option(
    "--traces-uri",
    callback=traces_uri_option,
    help="the URI the run wrote its traces to, when its manifest names one",
)
def score(directory: Path, json_path: Path | None, traces_uri: str | None) -> None:
    """Score traces already written by `villagelab run` (DIRECTORY holds its manifest; the
    traces are beside it, or at the URI given again with --traces-uri). Only a folder the run
    finished is scored, and only if every trace file is the one its manifest recorded."""
    from experiments.evaluation.manifest import read_manifest
    from harness.engine.store import read_verified
    from scorecards import load_definition, render_table
    from scorecards import score as score_traces

    meta = read_manifest(directory, traces_uri)
    traces = read_verified(meta.traces, meta.episodes, meta.sizes)
    card = score_traces(traces, load_definition(), hashes=meta.hashes, applicable=meta.metrics)
    out.show(render_table(card))
    if json_path:
        from experiments.tracking.records import stamp

        write_card(
            card,
            traces,
            json_path,
            title=f"villagelab score: {directory}",
            context={
                "traces": str(directory),
                "scenarios": ", ".join(sorted({sc for sc, _ in meta.episodes})),
                "seeds": ", ".join(map(str, sorted({seed for _, seed in meta.episodes}))),
                "date": stamp(),
            },
        )
    exit_on_broken_guardrail(card)
