"""Searching and what a person opens after it: `search` (the outer loop), `report` (the morning
summary of a study) and `ui` (the MLflow UI on the runs folder)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from experiments.cli.common import (
    TRACES_URI_HELP,
    agent_option,
    budget_options,
    err,
    invocation,
    make_execution,
    model_proposer,
    out,
    runs_option,
    secret_bearing,
    shell_join,
    suite_option,
    traces_uri_option,
    uri_option,
    with_option,
)
from experiments.search.config import Proposer
from experiments.stores.names import name_option
from policies import InputError


@click.command()
@click.option(
    "--study",
    required=True,
    callback=name_option("study"),
    help="the study's name (the same command resumes it)",
)
@click.option(
    "--trials",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="the study's budget of trials (counted across resumptions)",
)
@click.option(
    "--hours",
    type=click.FloatRange(min=0, min_open=True),
    help="stop this invocation after so many hours",
)
@click.option(
    "--mode", type=click.Choice(["global", "local", "pareto"]), default="global", show_default=True
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    help="search config YAML (scenarios, seeds, margin, start_policy, ...)",
)
@click.option(
    "--runs-dir", type=click.Path(path_type=Path), default=Path("runs"), show_default=True
)
@click.option(
    "--storage",
    callback=secret_bearing,
    help="Optuna storage URL, e.g. postgresql://... for several drivers (default: a "
    "journal file in the runs folder)",
)
@click.option(
    "--tracking-uri",
    callback=secret_bearing,
    help="MLflow tracking URI (default: SQLite in the runs folder)",
)
@click.option("--ray-address", help="attach to this Ray cluster")
@click.option("--workers", type=click.IntRange(min=1), help="local Ray workers")
@click.option("--serial", is_flag=True, help="run episodes in this process, without Ray")
@click.option(
    "--traces-uri",
    callback=traces_uri_option,
    help=TRACES_URI_HELP + "; each trial's under STUDY/trial-N (default: only "
    "champions' traces are kept, in the runs folder)",
)
@click.option(
    "--proposer",
    type=click.Choice([p.value for p in Proposer]),
    default=Proposer.RULES.value,
    show_default=True,
    help="who proposes the move at a plateau: the whitelist's declared rules, or a model "
    "asked for one whitelisted change (with --proposer-config)",
)
@click.option(
    "--proposer-config",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="--proposer llm: the model endpoint config, as --llm-config's (docs/llm.md)",
)
@agent_option
@budget_options
@suite_option
def search(
    study: str,
    trials: int,
    hours: float | None,
    mode: str,
    config_path: Path | None,
    runs_dir: Path,
    storage: str | None,
    tracking_uri: str | None,
    ray_address: str | None,
    workers: int | None,
    serial: bool,
    traces_uri: str | None,
    proposer: str,
    proposer_config: Path | None,
    agent_kind: str,
    suite: str | None,
) -> None:
    """Search the policy surface; promote only what beats the champion, roll back the rest."""
    from experiments.console.progress import trial_progress
    from experiments.search.config import load_config
    from experiments.search.loop import Search
    from experiments.search.study import Decision
    from experiments.stores.runs_folder import RunsDir

    config = load_config(config_path, suite)
    runs = RunsDir(runs_dir)
    driver = Search(
        study,
        trials=trials,
        hours=hours,
        mode=mode,
        config=config,
        runs=runs,
        execution=make_execution(serial, workers, ray_address, agent_kind, traces_uri),
        storage=storage,
        tracking_uri=tracking_uri,
        proposer=model_proposer(Proposer(proposer), proposer_config, runs_dir, study),
    )
    err.say(
        f"study {study} ({mode}): budget {trials} trials on "
        f"{len(config.scenarios)} scenarios × seeds {','.join(map(str, config.seeds))}"
        + (f", at most {hours:g} h" if hours else "")
    )

    def notice(text: str) -> None:
        err.say(text, label="note:", label_style="yellow")

    with trial_progress(err, trials, hours) as report:
        result = driver.run(on_trial=report, on_notice=notice)
    # next steps, printed so that they work when copied (the executable that ran, same args)
    me = invocation()
    where = [] if runs_dir == Path("runs") else ["--runs-dir", str(runs_dir)]
    again = (
        [me, "search", *sys.argv[sys.argv.index("search") + 1 :]]
        if "search" in sys.argv
        else [me, "search", "--study", study]
    )
    extend = shell_join(with_option(again, "--trials", str(trials + 10)))
    if result.stopped == "spent":
        out.say(
            f"study: {study}\ntrials_this_run: 0\nstopped_by: spent\n"
            f"trials_done: {result.spent}\nbudget: {trials}\n"
            f"champion_version: {result.champion_version}\n"
            f"champion_policy: {result.champion_policy}\nextend_it: {extend}"
        )
        err.say(
            f"study {study} has used its budget of {trials} trials; nothing ran. --trials is "
            "the study's budget, counted across resumptions: give a larger one to extend it."
        )
        return
    counts = {d: sum(o.decision == d for o in result.outcomes) for d in Decision}
    out.say(
        f"study: {study}\nmode: {mode}\ntrials_this_run: {len(result.outcomes)}\n"
        + "".join(f"{k}: {v}\n" for k, v in counts.items())
        + f"stopped_by: {result.stopped}\n"
        f"start_objective: {result.start_objective:.4f}\n"
        f"champion_objective: {result.champion_objective:.4f}\n"
        f"champion_version: {result.champion_version}\n"
        f"champion_policy: {result.champion_policy}\n"
        f"results: {runs.root.resolve()}\n"
        f"mlflow: {result.tracking_uri}\n"
        f"morning_report: {shell_join([me, 'report', '--study', study, *where])}\n"
        f"open the MLflow UI: {shell_join([me, 'ui', *where])}\n"
        f"extend_it: {extend}"
    )


@click.command()
@click.option("--study", required=True, callback=name_option("study"))
@runs_option
@click.option(
    "--storage",
    callback=secret_bearing,
    help="the study's Optuna storage URL, if not the journal file",
)
@uri_option
def report(study: str, runs_dir: Path, storage: str | None, tracking_uri: str | None) -> None:
    """The morning summary of a study (markdown and HTML): the champion against careful and
    baseline metric by metric, every trial's decision and reason, the best rejected
    challenger, promotions, parameter importances, the Pareto front."""
    from experiments.reports.morning import morning_report

    md, html, text = morning_report(study, runs_dir, storage, tracking_uri)
    out.say(text)
    out.say(f"report: {md}\nreport_html: {html}")


@click.command()
@click.option(
    "--runs-dir", type=click.Path(path_type=Path), default=Path("runs"), show_default=True
)
@click.option("--port", type=click.IntRange(1, 65535), default=5000, show_default=True)
def ui(runs_dir: Path, port: int) -> None:
    """Serve the MLflow UI on the runs folder (on 127.0.0.1) and print the address of the
    newest study's trials; Ctrl-C stops it."""
    from experiments.stores.runs_folder import RunsDir
    from experiments.tracking.ui import serve

    runs = RunsDir(runs_dir)
    if not (runs_dir / "mlflow.db").exists():
        raise InputError(
            f"{runs_dir}: no mlflow.db; run 'villagelab search' first or give --runs-dir"
        )

    def say(text: str) -> None:
        out.say(text)
        sys.stdout.flush()

    sys.exit(serve(runs.tracking_uri, "127.0.0.1", port, say))
