"""The `villagelab` command line (design §9): the composition root.

Exit codes everywhere: 0 ok; 1 regression or broken guardrail; 2 bad input or error;
3 baseline missing, or made with another instrument or agent. A user's mistake never shows a
traceback.

Here and in `commands/`, a command imports what it runs inside its body: `villagelab --help`
and a refused input start without Optuna, Ray, pandas, pyarrow and MLflow (about 2.4 s less
on two cores; tests/test_layout.py holds it).
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

import click
from rich.table import Table

from policies import InputError

from .commands import bench, checks, files, runs
from .commands._common import (
    TRACES_URI_HELP,
    agent_option,
    budget_options,
    err,
    invocation,
    make_execution,
    model_proposer,
    out,
    secret_bearing,
    shell_join,
    suite_option,
    traces_uri_option,
    with_option,
)
from .config import Proposer
from .names import name_option
from .terminal import cell, scrub_output


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    package_name="villagelab", prog_name="villagelab", message="%(prog)s %(version)s"
)
def cli() -> None:
    """villagelab: search policies of stateful agent societies against a balanced scorecard."""


for command in (
    files.policy,
    files.scenario,
    files.inspect_agent,
    runs.run,
    runs.score,
    checks.gate,
    checks.sweep_command,
    bench.bench,
):
    cli.add_command(command)


# --- search ---------------------------------------------------------------------------------------
@cli.command()
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
    from .config import load_config
    from .progress import trial_progress
    from .runs import RunsDir
    from .search import Search
    from .study import Decision

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


# --- champion and report ----------------------------------------------------------------------
@cli.group()
def champion() -> None:
    """The champion in the MLflow registry: show, history, rollback, export."""


def _registry(runs_dir: Path, tracking_uri: str | None):  # type: ignore[no-untyped-def]
    from .champion import Registry, tracking_uri_for

    if tracking_uri is None and not (runs_dir / "mlflow.db").exists():
        raise InputError(
            f"{runs_dir}: no run store (mlflow.db); run 'villagelab search' "
            "first or give --runs-dir"
        )
    return Registry(tracking_uri_for(runs_dir, tracking_uri))


_runs_option = click.option(
    "--runs-dir", type=click.Path(path_type=Path), default=Path("runs"), show_default=True
)
_uri_option = click.option(
    "--tracking-uri",
    callback=secret_bearing,
    help="MLflow tracking URI (default: the runs folder's SQLite store)",
)


@champion.command("show")
@_runs_option
@_uri_option
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
@_runs_option
@_uri_option
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
@_runs_option
@_uri_option
def champion_rollback(to_version: int | None, runs_dir: Path, tracking_uri: str | None) -> None:
    """Move the alias back."""
    old, new = _registry(runs_dir, tracking_uri).rollback(to_version)
    out.say(f"champion: version {old} → version {new}")


@champion.command("export")
@click.argument("path", type=click.Path(path_type=Path))
@_runs_option
@_uri_option
def champion_export(path: Path, runs_dir: Path, tracking_uri: str | None) -> None:
    """Write the champion's policy as a YAML file."""
    from villagelab.files import atomic_write_bytes

    number, policy = _registry(runs_dir, tracking_uri).policy()
    atomic_write_bytes(path, policy.to_yaml().encode())
    out.say(f"champion version {number} (policy {policy.hash}) → {path}")


@cli.command()
@click.option("--study", required=True, callback=name_option("study"))
@_runs_option
@click.option(
    "--storage",
    callback=secret_bearing,
    help="the study's Optuna storage URL, if not the journal file",
)
@_uri_option
def report(study: str, runs_dir: Path, storage: str | None, tracking_uri: str | None) -> None:
    """The morning summary of a study (markdown and HTML): the champion against careful and
    baseline metric by metric, every trial's decision and reason, the best rejected
    challenger, promotions, parameter importances, the Pareto front."""
    from .morning import morning_report

    md, html, text = morning_report(study, runs_dir, storage, tracking_uri)
    out.say(text)
    out.say(f"report: {md}\nreport_html: {html}")


@cli.command()
@click.option(
    "--runs-dir", type=click.Path(path_type=Path), default=Path("runs"), show_default=True
)
@click.option("--port", type=click.IntRange(1, 65535), default=5000, show_default=True)
def ui(runs_dir: Path, port: int) -> None:
    """Serve the MLflow UI on the runs folder (on 127.0.0.1) and print the address of the
    newest study's trials; Ctrl-C stops it."""
    from .runs import RunsDir
    from .ui import serve

    runs = RunsDir(runs_dir)
    if not (runs_dir / "mlflow.db").exists():
        raise InputError(
            f"{runs_dir}: no mlflow.db; run 'villagelab search' first or give --runs-dir"
        )

    def say(text: str) -> None:
        out.say(text)
        sys.stdout.flush()

    sys.exit(serve(runs.tracking_uri, "127.0.0.1", port, say))


# MLflow, quiet: no usage telemetry, no progress bars (the user may still choose otherwise)
QUIET_MLFLOW = {"MLFLOW_DISABLE_TELEMETRY": "true", "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "false"}


def sweep_orphans() -> None:
    """Stop the processes (a local Ray cluster, an MLflow UI server) that a villagelab killed
    before it could stop them left behind, and say so."""
    from villagelab import processes

    stopped = processes.sweep()
    if stopped:
        err.say(
            f"stopped {len(stopped)} processes left by a villagelab that was killed "
            f"({', '.join(str(p.pid) for p in stopped[:8])}{' …' if len(stopped) > 8 else ''})"
        )


def main() -> None:
    """The entry point: the one place that sets process-wide things, before any command."""
    for key, value in QUIET_MLFLOW.items():
        os.environ.setdefault(key, value)
    scrub_output()  # libraries log and print URIs; none of their credentials gets out
    sweep_orphans()  # what a villagelab killed before it could stop them (kill -9) left
    os.environ.setdefault("MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT", "true")  # ours say it
    try:
        cli.main(standalone_mode=False)
    except InputError as exc:
        err.say(exc, label="error:", label_style="red")
        sys.exit(2)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.UsageError as exc:  # as click shows it, but the user's text cleaned
        if exc.ctx is not None:
            err.say(exc.ctx.get_usage())
            err.say(f"Try '{exc.ctx.command_path} {exc.ctx.help_option_names[0]}' for help.\n")
        err.say(exc.format_message(), label="Error:", label_style="red")
        sys.exit(2)
    except click.ClickException as exc:
        err.say(exc.format_message(), label="Error:", label_style="red")
        sys.exit(2)
    except click.exceptions.Abort:
        err.say("aborted")
        sys.exit(130)
    except KeyboardInterrupt:
        err.say("interrupted")
        sys.exit(130)
    except Exception:  # noqa: BLE001 — a bug, not the user's mistake: shown, credentials masked
        err.say(traceback.format_exc().rstrip(), label="internal error:", label_style="red")
        sys.exit(2)


if __name__ == "__main__":
    main()
