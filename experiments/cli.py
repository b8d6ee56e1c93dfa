"""The `villagelab` command line (DESIGN §9): the composition root.

Exit codes everywhere: 0 ok; 1 regression or broken guardrail; 2 bad input or error;
3 baseline missing or made with another instrument. A user's mistake never shows a traceback.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

import click
from rich.table import Table

from harness.safe_text import redact, remember
from policies import InputError, describe, diff, load_policy
from scenarios import builtin_names, load_scenario, parse_seeds

from .names import name_option
from .terminal import Terminal, cell, clean, scrub_output

out = Terminal()
err = Terminal(stderr=True)


def _seeds(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        return parse_seeds(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    package_name="villagelab", prog_name="villagelab", message="%(prog)s %(version)s"
)
def cli() -> None:
    """villagelab: search policies of stateful agent societies against a balanced scorecard."""


# --- policy --------------------------------------------------------------------------------------
@cli.group()
def policy() -> None:
    """Validate, show and compare policy files."""


@policy.command("validate")
@click.argument("path", type=click.Path(path_type=Path))
def policy_validate(path: Path) -> None:
    """Check a policy file against the whitelist."""
    p = load_policy(path)
    out.say(f"{path}: ok (policy {p.hash})")


@policy.command("show")
@click.argument("path", type=click.Path(path_type=Path))
def policy_show(path: Path) -> None:
    """Every whitelisted parameter: its value here, its default and what it means."""
    p = load_policy(path)
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
def policy_diff(a: Path, b: Path) -> None:
    """The parameters on which two policies differ."""
    pa_, pb = load_policy(a), load_policy(b)
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


# --- scenario ------------------------------------------------------------------------------------
@cli.group()
def scenario() -> None:
    """Validate scenario files and list the built-in library."""


@scenario.command("validate")
@click.argument("path", type=click.Path(path_type=Path))
def scenario_validate(path: Path) -> None:
    """Check a scenario file: schema and every cross-reference."""
    s = load_scenario(path)
    out.say(
        f"{path}: ok (scenario {s.name}, {len(s.agents)} agents, "
        f"{len(s.truth)} tracked propositions)"
    )


@scenario.command("list")
def scenario_list() -> None:
    """The built-in scenarios, what each tests and its metrics."""
    table = Table()
    for col in ("scenario", "agents", "what it tests", "metrics"):
        table.add_column(col)
    for name in builtin_names():
        s = load_scenario(name)
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


# --- run and score -------------------------------------------------------------------------------
def _execution(
    serial: bool,
    workers: int | None,
    address: str | None = None,
    agent: str = "reference",
    traces_uri: str | None = None,
):  # type: ignore[no-untyped-def]
    from .evaluation import Execution

    return Execution(
        serial=serial, workers=workers, address=address, agent=agent, traces_uri=traces_uri
    )


def _traces_uri(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A shared trace location must be a URI pyarrow can open, checked before anything runs."""
    if value is None:
        return None
    from harness.store import filesystem, is_uri

    remember(value)
    if not is_uri(value):
        raise click.BadParameter(
            f"{value!r} is not a URI; expected one every worker can "
            "write, e.g. file:///mnt/shared/traces or s3://bucket/prefix"
        )
    try:
        filesystem(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    return value.rstrip("/")


def _secret_bearing(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A store's URL may carry a password: it is used, never shown, logged or written."""
    return remember(value)


TRACES_URI_HELP = (
    "a URI every Ray worker can write and this machine read (file:// on a "
    "shared mount, s3://, gs://): workers write the traces there and send "
    "back only measured values"
)


@cli.command()
@click.option(
    "--scenario",
    "scenario_names",
    multiple=True,
    required=True,
    help="a built-in scenario name or a path (repeatable)",
)
@click.option("--policy", "policy_path", required=True, type=click.Path(path_type=Path))
@click.option("--seeds", default="0-4", show_default=True, callback=_seeds)
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path))
@click.option("--workers", type=click.IntRange(min=1), help="Ray workers (default: all cores)")
@click.option("--serial", is_flag=True, help="run in this process, without Ray")
@click.option(
    "--json",
    "json_path",
    type=click.Path(path_type=Path),
    help="also write the scorecard JSON here",
)
@click.option(
    "--agent",
    "agent_kind",
    type=click.Choice(["reference", "simple"]),
    default="reference",
    show_default=True,
    help="the agent implementation",
)
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
@click.option("--traces-uri", callback=_traces_uri, help=TRACES_URI_HELP)
@click.option(
    "--mlflow",
    "to_mlflow",
    is_flag=True,
    help="also log an MLflow run (scorecard, reports, manifest) in the run store",
)
@click.option(
    "--runs-dir",
    type=click.Path(path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="the run store for --mlflow",
)
@click.option(
    "--tracking-uri",
    callback=_secret_bearing,
    help="MLflow tracking URI for --mlflow (default: the runs folder's SQLite store)",
)
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
    to_mlflow: bool,
    runs_dir: Path,
    tracking_uri: str | None,
) -> None:
    """Run scenario × seed episodes, write Parquet traces to OUT (or --traces-uri) and score
    them; the manifest goes to OUT. Exits 1 when the scorecard breaks a guardrail (all is
    written all the same), 2 when an episode did not finish."""
    from scorecards import render_table

    from .evaluation import Instrument, evaluate
    from .progress import episode_progress

    p = load_policy(policy_path)  # bad input stops here, before anything runs
    instrument = Instrument.load(scenario_names, agents=agents, structure_seed=structure_seed)
    total = len(instrument.scenarios) * len(seeds)
    with episode_progress(err, total) as advance:
        execution = _execution(serial, workers, ray_address, agent_kind, traces_uri)
        evaluation = evaluate(p, instrument, seeds, execution, out=out_dir, on_done=advance)
    out.show(render_table(evaluation.scorecard))
    reports: list[Path] = []
    if json_path:
        from .logbook import context

        reports = _write_card(
            evaluation.scorecard,
            evaluation.load_traces(),
            json_path,
            title=f"villagelab run: {policy_path}",
            context=context(str(policy_path), evaluation),
        )
    if to_mlflow:
        from .logbook import log_run

        uri, artifacts = _store(runs_dir, tracking_uri)
        where = log_run(uri, artifacts, evaluation, policy_path, out_dir, reports)
        out.say(f"mlflow_run: {where}")
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
    if evaluation.resumed:
        err.say(
            f"resumed: {evaluation.resumed} of {total} episodes were already written in {out_dir}"
        )
    from harness.store import join_uri

    traces = redact(join_uri(traces_uri, "traces")) if traces_uri else out_dir / "traces"
    out.say(
        f"traces: {traces}\nmanifest: {out_dir}/manifest.json\n"
        f"episodes: {total - len(bad)} ok, {len(bad)} not ok"
    )
    if bad:
        sys.exit(2)
    _exit_on_broken_guardrail(evaluation.scorecard)


def _exit_on_broken_guardrail(card) -> None:  # type: ignore[no-untyped-def]
    """Exit 1 when the scorecard breaks a guardrail (the README's rule, everywhere)."""
    broken = [name for name, g in card.guardrails.items() if not g.ok]
    if broken:
        err.say(f"guardrail broken: {', '.join(broken)} (exit 1)")
        sys.exit(1)


def _store(runs_dir: Path, tracking_uri: str | None) -> tuple[str, Path]:
    """The MLflow store to log to, and the folder its local artifacts go under."""
    from .runs import RunsDir

    runs = RunsDir(runs_dir)
    runs.root.mkdir(parents=True, exist_ok=True)
    return tracking_uri or runs.tracking_uri, runs.artifacts


@cli.command()
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--json", "json_path", type=click.Path(path_type=Path))
@click.option(
    "--traces-uri",
    callback=_traces_uri,
    help="the URI the run wrote its traces to, when its manifest names one",
)
def score(directory: Path, json_path: Path | None, traces_uri: str | None) -> None:
    """Score traces already written by `villagelab run` (DIRECTORY holds its manifest; the
    traces are beside it, or at the URI given again with --traces-uri)."""
    from harness import read_traces
    from scorecards import load_definition, render_table
    from scorecards import score as score_traces

    from .manifest import read_manifest

    meta = read_manifest(directory, traces_uri)
    traces = read_traces(meta.traces, meta.episodes)
    card = score_traces(traces, load_definition(), hashes=meta.hashes, applicable=meta.metrics)
    out.show(render_table(card))
    if json_path:
        from .records import stamp

        _write_card(
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
    _exit_on_broken_guardrail(card)


def _write_card(
    card,
    traces,
    json_path: Path,
    comparison=None,  # type: ignore[no-untyped-def]
    title: str = "villagelab scorecard",
    context: dict[str, str] | None = None,
) -> list[Path]:
    """The scorecard JSON and, beside it, the markdown and HTML reports."""
    from scorecards.report import write_reports

    card.write_json(json_path)
    md, html = write_reports(
        card, traces, json_path.parent, comparison=comparison, title=title, context=context
    )
    out.say(f"scorecard: {json_path}\nreport: {md}\nreport_html: {html}")
    return [md, html]


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
    callback=_secret_bearing,
    help="Optuna storage URL, e.g. postgresql://... for several drivers (default: a "
    "journal file in the runs folder)",
)
@click.option(
    "--tracking-uri",
    callback=_secret_bearing,
    help="MLflow tracking URI (default: SQLite in the runs folder)",
)
@click.option("--ray-address", help="attach to this Ray cluster")
@click.option("--workers", type=click.IntRange(min=1), help="local Ray workers")
@click.option("--serial", is_flag=True, help="run episodes in this process, without Ray")
@click.option(
    "--traces-uri",
    callback=_traces_uri,
    help=TRACES_URI_HELP + "; each trial's under STUDY/trial-N (default: only "
    "champions' traces are kept, in the runs folder)",
)
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
) -> None:
    """Search the policy surface; promote only what beats the champion, roll back the rest."""
    from .config import load_config
    from .progress import trial_progress
    from .runs import RunsDir
    from .search import Search

    config = load_config(config_path)
    runs = RunsDir(runs_dir)
    driver = Search(
        study,
        trials=trials,
        hours=hours,
        mode=mode,
        config=config,
        runs=runs,
        execution=_execution(serial, workers, ray_address, traces_uri=traces_uri),
        storage=storage,
        tracking_uri=tracking_uri,
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
    me = invocation()
    where = [] if runs_dir == Path("runs") else ["--runs-dir", str(runs_dir)]
    again = (
        [me, "search", *sys.argv[sys.argv.index("search") + 1 :]]
        if "search" in sys.argv
        else [me, "search", "--study", study]
    )
    if result.stopped == "spent":
        out.say(
            f"study: {study}\ntrials_this_run: 0\nstopped_by: spent\n"
            f"trials_done: {result.spent}\nbudget: {trials}\n"
            f"champion_version: {result.champion_version}\n"
            f"champion_policy: {result.champion_policy}\n"
            f"extend_it: {shell_join(with_option(again, '--trials', str(trials + 10)))}"
        )
        err.say(
            f"study {study} has used its budget of {trials} trials; nothing ran. "
            "--trials is the study's budget, counted across resumptions: give a larger "
            "one to extend it."
        )
        return
    counts = {
        d: sum(o.decision == d for o in result.outcomes)
        for d in ("promoted", "rolled_back", "pruned", "failed")
    }
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
        f"extend_it: {shell_join(with_option(again, '--trials', str(trials + 10)))}"
    )


def invocation() -> str:
    """How to run this command again from the same folder: `villagelab` when that is what
    the shell finds, else the path it was started by (e.g. .venv/bin/villagelab)."""
    import shutil

    started = sys.argv[0] if sys.argv and sys.argv[0] else "villagelab"
    found = shutil.which("villagelab")
    if found and Path(found).resolve() == Path(started).resolve():
        return "villagelab"
    if started.endswith(".py"):  # python -m experiments.cli
        return shell_join([sys.executable, "-m", "experiments.cli"])
    if os.sep not in started:  # started by name from somewhere the shell looks
        return found or started
    return started


def with_option(args: list[str], option: str, value: str) -> list[str]:
    """`args` with `option` set to `value` (replaced where given, else appended)."""
    out = list(args)
    for i, arg in enumerate(out):
        if arg == option and i + 1 < len(out):
            out[i + 1] = value
            return out
        if arg.startswith(option + "="):
            out[i] = f"{option}={value}"
            return out
    return [*out, option, value]


def shell_join(args: list[str]) -> str:
    import shlex

    return shlex.join(args)


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
    callback=_secret_bearing,
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
    from harness.store import atomic_write_bytes

    number, policy = _registry(runs_dir, tracking_uri).policy()
    atomic_write_bytes(path, policy.to_yaml().encode())
    out.say(f"champion version {number} (policy {policy.hash}) → {path}")


@cli.command()
@click.option("--study", required=True, callback=name_option("study"))
@_runs_option
@click.option(
    "--storage",
    callback=_secret_bearing,
    help="the study's Optuna storage URL, if not the journal file",
)
@_uri_option
def report(study: str, runs_dir: Path, storage: str | None, tracking_uri: str | None) -> None:
    """The morning summary of a study: promotions, the champion against careful and
    baseline, parameter importances, the Pareto front."""
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


# --- gate ----------------------------------------------------------------------------------------
@cli.command()
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
    help="baseline scorecard (default scorecards/baseline.json)",
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
    help="the run store: the champion registry (--policy "
    "champion) and the MLflow run this gate logs",
)
@click.option(
    "--tracking-uri",
    callback=_secret_bearing,
    help="MLflow tracking URI to log to (default: the runs folder's SQLite store)",
)
@click.option("--no-mlflow", is_flag=True, help="do not log the gate as an MLflow run")
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
) -> None:
    """Fail (exit 1) when the policy regresses against the committed baseline."""
    from scorecards import render_table

    from .gate import DEFAULT_BASELINE, run_gate, write_outputs

    p = _policy_or_champion(policy_spec, runs_dir)
    result = run_gate(
        p,
        baseline_path or DEFAULT_BASELINE,
        _execution(serial, workers),
        update_baseline=update_baseline,
    )
    out.show(render_table(result.evaluation.scorecard, result.comparison))
    write_outputs(result, json_path=json_path, junit_path=junit_path, summary_path=summary_path)
    files = [f for f in (json_path, junit_path, summary_path) if f is not None]
    if json_path:
        from scorecards.report import write_reports

        from .logbook import failures, gate_context

        files += write_reports(
            result.evaluation.scorecard,
            result.evaluation.traces,
            json_path.parent,
            comparison=result.comparison,
            title=f"villagelab gate: {policy_spec}",
            context=gate_context(result, policy_spec, baseline_path or DEFAULT_BASELINE),
            failed=failures(result),
        )
    if not no_mlflow and not update_baseline:
        from .logbook import log_gate

        uri, artifacts = _store(runs_dir, tracking_uri)
        where = log_gate(
            uri, artifacts, result, policy_spec, baseline_path or DEFAULT_BASELINE, files
        )
        out.say(f"mlflow_run: {where}")
    (out if result.code == 0 else err).say(f"gate: {result.message}")
    sys.exit(result.code)


def _policy_or_champion(spec: str, runs_dir: Path):  # type: ignore[no-untyped-def]
    if spec != "champion":
        return load_policy(Path(spec))
    from .champion import champion_policy

    return champion_policy(runs_dir)


@cli.command("sweep")
@click.option("--param", "name", required=True, help="a whitelisted parameter")
@click.option("--values", "values_text", required=True, help="comma-separated, e.g. 0.2,0.5,0.8")
@click.option(
    "--policy",
    "policy_path",
    type=click.Path(path_type=Path),
    help="the policy held fixed otherwise (default: careful.yaml)",
)
@click.option("--scenario", "scenario_names", multiple=True, required=True)
@click.option("--seeds", default="0-4", show_default=True, callback=_seeds)
@click.option("--serial", is_flag=True, help="run episodes in this process, without Ray")
@click.option(
    "--mlflow",
    "to_mlflow",
    is_flag=True,
    help="also log the sweep to MLflow: a parent run, a child run per value",
)
@click.option(
    "--runs-dir",
    type=click.Path(path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="the run store for --mlflow",
)
@click.option(
    "--tracking-uri",
    callback=_secret_bearing,
    help="MLflow tracking URI for --mlflow (default: the runs folder's SQLite store)",
)
def sweep_command(
    name: str,
    values_text: str,
    policy_path: Path | None,
    scenario_names: tuple[str, ...],
    seeds: tuple[int, ...],
    serial: bool,
    to_mlflow: bool,
    runs_dir: Path,
    tracking_uri: str | None,
) -> None:
    """One parameter over several values: what it buys on one metric, what it costs on
    another."""
    from .evaluation import Instrument
    from .sweep import parse_values, sweep

    base = load_policy(
        policy_path or Path(__file__).resolve().parent.parent / "policies" / "careful.yaml"
    )
    try:
        values = parse_values(name, values_text)
    except ValueError as exc:
        raise InputError(f"--values {values_text!r}: {exc}") from None
    instrument = Instrument.load(scenario_names)
    for value in values:
        base.with_values({name: value})  # out of range stops here, before anything is logged
    log = None
    if to_mlflow:
        from .logbook import SweepLog

        log = SweepLog(
            *_store(runs_dir, tracking_uri),
            name,
            values,
            str(policy_path or "policies/careful.yaml"),
        )
    try:
        points = sweep(
            base,
            name,
            values,
            instrument,
            seeds,
            _execution(serial, None),
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


@cli.command("inspect")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--scenario", "scenario_name", required=True)
@click.option("--seed", type=int, required=True)
@click.option("--agent", required=True)
@click.option("--tick", type=int, help="default: the end of the episode")
def inspect_agent(
    directory: Path, scenario_name: str, seed: int, agent: str, tick: int | None
) -> None:
    """One agent at one tick, from the traces: state, events, beliefs, retrievals."""
    from .inspect import inspect

    out.show(inspect(directory, scenario_name, seed, agent, tick))


@cli.command()
@click.option("--agents", type=click.IntRange(min=2), default=25, show_default=True)
@click.option("--profile", is_flag=True, help="also show where the village's time goes")
@click.option(
    "--gate-aa",
    type=click.IntRange(min=0),
    default=0,
    help="also run the gate's A/A check this many times (false-alarm rate)",
)
def bench(agents: int, profile: bool, gate_aa: int) -> None:
    """Throughput: episodes of each scenario, the generated village, scoring."""
    from .bench import episode_rates, village_rate

    if gate_aa:
        from .gate import aa_check

        careful = load_policy(Path(__file__).resolve().parent.parent / "policies" / "careful.yaml")
        alarms, repeats = aa_check(careful, gate_aa, _execution(True, None))
        out.say(f"gate.aa_false_alarms: {alarms} of {repeats} ({alarms / repeats:.1%})")

    for name, seconds, rate in episode_rates():
        out.say(f"episode.{name}: {seconds * 1000:.1f} ms, {rate:,.0f} agent-ticks/s")
    rate, report = village_rate(agents, profile=profile)
    eager, _ = village_rate(agents, lazy=False)
    out.say(
        f"village.{agents}_agents_one_day: {rate:,.0f} agent-ticks/s "
        f"(every agent asked every tick: {eager:,.0f})"
    )
    try:
        from scorecards.bench import bench_score
    except ImportError:
        bench_score = None
    if bench_score is not None:
        out.say(f"score.1M_rows: {bench_score(1_000_000):.2f} s")
    if report:
        out.say(report)


def main() -> None:
    scrub_output()  # libraries log and print URIs; none of their credentials gets out
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
