"""Running episodes and scoring their traces: `run` and `score`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from policies import InputError, load_policy

from ._common import (
    TRACES_URI_HELP,
    agent_option,
    err,
    make_execution,
    out,
    seeds_option,
    traces_uri_option,
    write_card,
)


@click.command()
@click.option(
    "--scenario",
    "scenario_names",
    multiple=True,
    required=True,
    help="a built-in scenario name or a path (repeatable)",
)
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
@click.option("--ray-address", help="attach to a running Ray cluster (e.g. 127.0.0.1:6379)")
@click.option("--traces-uri", callback=traces_uri_option, help=TRACES_URI_HELP)
def run(
    scenario_names: tuple[str, ...],
    policy_path: Path,
    seeds: tuple[int, ...],
    out_dir: Path,
    workers: int | None,
    serial: bool,
    json_path: Path | None,
    agent_kind: str,
    agents: int,
    structure_seed: int,
    ray_address: str | None,
    traces_uri: str | None,
) -> None:
    """Run scenario × seed episodes, write Parquet traces to OUT (or --traces-uri) and score
    them; the manifest goes to OUT."""
    from scorecards import render_table

    from ..evaluation import Instrument, evaluate
    from ..progress import episode_progress

    p = load_policy(policy_path)  # bad input stops here, before anything runs
    instrument = Instrument.load(scenario_names, agents=agents, structure_seed=structure_seed)
    total = len(instrument.scenarios) * len(seeds)
    with episode_progress(err, total) as advance:
        execution = make_execution(serial, workers, ray_address, agent_kind, traces_uri)
        evaluation = evaluate(p, instrument, seeds, execution, out=out_dir, on_done=advance)
    out.print(render_table(evaluation.scorecard))
    if json_path:
        write_card(evaluation.scorecard, evaluation.load_traces(), json_path)
    bad = evaluation.problems
    for r in evaluation.records:
        if r.retried and r.status == "ok":
            err.print(
                f"[yellow]episode {r.scenario}/{r.seed}: ran twice; the first worker "
                f"was lost ({r.retried})"
            )
    for r in bad:
        err.print(f"[red]episode {r.scenario}/{r.seed}: {r.status}: {r.error}")
    if evaluation.resumed:
        err.print(
            f"resumed: {evaluation.resumed} of {total} episodes were already written in {out_dir}"
        )
    out.print(
        f"traces: {traces_uri or out_dir}/traces\nmanifest: {out_dir}/manifest.json\n"
        f"episodes: {total - len(bad)} ok, {len(bad)} not ok"
    )
    if bad:
        sys.exit(2)


@click.command()
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--json", "json_path", type=click.Path(path_type=Path))
def score(directory: Path, json_path: Path | None) -> None:
    """Score traces already written by `villagelab run` (DIRECTORY holds its manifest; the
    traces are beside it, or at the URI the manifest names)."""
    from harness import read_traces
    from harness.engine.store import is_uri
    from scorecards import load_definition, render_table
    from scorecards import score as score_traces

    manifest = directory / "manifest.json"
    if not manifest.exists():
        raise InputError(
            f"{directory}: no manifest.json; expected a folder written by "
            "'villagelab run --out DIR'"
        )
    meta = json.loads(manifest.read_text())
    if not meta.get("complete", True):
        raise InputError(
            f"{manifest}: the run that writes this folder has not finished (or "
            "was interrupted); run the same 'villagelab run' command again to "
            "resume it"
        )
    hashes = {k: meta[k] for k in ("harness", "instrument", "policy")}
    applicable = meta.get("metrics")  # each scenario's declared metrics, as run
    location = meta.get("traces", "traces")
    episodes = [(e["scenario"], e["seed"]) for e in meta["episodes"] if e["status"] == "ok"]
    traces = read_traces(location if is_uri(location) else directory, episodes)
    card = score_traces(traces, load_definition(), hashes=hashes, applicable=applicable)
    out.print(render_table(card))
    if json_path:
        write_card(card, traces, json_path)
