"""What the commands share: the terminals, the --seeds, --agent and --traces-uri options, and
how a run's execution (serial, Ray, the agent) and its scorecard files are made."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from experiments.console.terminal import Terminal
from experiments.search.config import Proposer
from policies import InputError
from scenarios import parse_seeds
from villagelab.safe_text import remember

if TYPE_CHECKING:
    from experiments.evaluation.dispatch import Execution
    from experiments.search.model_proposal import ModelProposer
    from harness.agents.registry import AgentChoice

Command = TypeVar("Command", bound=Callable[..., Any])  # a click command function, decorated

out = Terminal()
err = Terminal(stderr=True)


def seeds_option(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        return parse_seeds(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def agent_option(command: Command) -> Command:
    """--agent on every command that runs episodes: a registered name (the built-in ones and
    installed packages' `villagelab.agents` entry points) or an import path module:Factory;
    checked, and its code hashed, before any episode runs."""
    from harness.agents.registry import describe

    command = click.option(
        "--cache-only",
        is_flag=True,
        expose_value=False,
        callback=_remember_option,
        help="--agent llm: answer every model call from the response cache; a call not in it "
        "ends its episode as cache_miss",
    )(command)
    command = click.option(
        "--llm-config",
        type=click.Path(path_type=Path),
        expose_value=False,
        callback=_remember_option,
        metavar="FILE",
        help="--agent llm: the model endpoint, cache, budgets and prices (docs/llm.md); an "
        "agent of your own whose factory takes options gets the endpoint and prices",
    )(command)
    return click.option(
        "--agent",
        "agent_kind",
        default="reference",
        show_default=True,
        metavar="NAME|module:Factory",
        help=f"the agent: {describe()}",
    )(command)


allow_large_option = click.option(
    "--allow-large",
    is_flag=True,
    help="a deliberate big run: lift the documented bounds on a scenario's size and an "
    "episode's estimated cost",
)


def bounds(allow_large: bool):  # type: ignore[no-untyped-def]
    from scenarios.checks import DEFAULT, LARGE

    return LARGE if allow_large else DEFAULT


_BUDGET = "villagelab.budget"


def _budget_part(ctx: click.Context, param: click.Parameter, value: float | None) -> None:
    ctx.meta.setdefault(_BUDGET, {})[param.name] = value


def budget_options(command: Command) -> Command:
    """--episode-timeout and --episode-memory on every command that runs episodes: an episode
    past either ends as timed_out or out_of_memory, recorded, and the others go on."""
    from harness.engine.budget import DEFAULT_MEMORY_MB, DEFAULT_SECONDS

    command = click.option(
        "--episode-memory",
        type=click.IntRange(min=1),
        default=DEFAULT_MEMORY_MB,
        show_default=True,
        metavar="MB",
        expose_value=False,
        callback=_budget_part,
        help="memory one episode may add to its process (past it: out_of_memory)",
    )(command)
    return click.option(
        "--episode-timeout",
        type=click.FloatRange(min=0, min_open=True),
        default=DEFAULT_SECONDS,
        show_default=True,
        metavar="SECONDS",
        expose_value=False,
        callback=_budget_part,
        help="wall clock one episode may take (past it: timed_out)",
    )(command)


def _remember_option(ctx: click.Context, param: click.Parameter, value: object) -> object:
    ctx.meta[f"villagelab.{param.name}"] = value
    return value


def agent_options(agent: str) -> str | None:
    """`--llm-config FILE` (and `--cache-only`) as the LLM agent's options: the config
    validated here (bad input exits 2 before anything runs), travelling as JSON. The API key
    stays in its environment variable; credentials in the endpoint's URL are masked wherever
    text is shown or written."""
    ctx = click.get_current_context()
    path = ctx.meta.get("villagelab.llm_config")
    cache_only = bool(ctx.meta.get("villagelab.cache_only"))
    if path is None:
        if cache_only:
            raise InputError("--cache-only: expected --llm-config FILE with it")
        return None
    import json
    import secrets

    from harness.agents.llm import agent_options as llm_options
    from harness.agents.llm import load_llm_config
    from harness.engine.plugins import is_import_path

    if agent != "llm" and not is_import_path(agent):
        raise InputError(
            f"--llm-config: only --agent llm or an agent's import path (whose factory takes "
            f"options: configure) takes a model config (got {agent})"
        )
    config = load_llm_config(path, need_key=not cache_only)
    remember(config.endpoint.base_url)
    if agent != "llm":  # an agent of the user's own: the validated config, its to use
        if cache_only:
            raise InputError("--cache-only: only --agent llm replays a response cache")
        return json.dumps({"config": config.model_dump(mode="json")}, sort_keys=True)
    if cache_only:
        config = config.with_cache_only(True)
    runs_dir = ctx.params.get("runs_dir") or Path("runs")
    options = llm_options(config, Path(runs_dir).resolve(), secrets.token_hex(6))
    return json.dumps(options, sort_keys=True)


def model_usage_lines(records: list[Any], choice: AgentChoice) -> dict[str, str]:
    """Grep-able lines on what the agent's tables declare summed: the LLM agent's calls
    (made, served from the cache, tokens, cost), another agent's `usage_<table>.<column>`
    figures as a search logs them."""
    from harness.agents.llm import usage_lines
    from harness.agents.registry import CONFIGURED

    usages = [getattr(r, "model_usage", {}) for r in records]
    path = click.get_current_context().meta.get("villagelab.llm_config")
    if path is not None and choice.path in CONFIGURED.values():  # villagelab's LLM agent
        return usage_lines(usages, path)
    return {k: f"{v:g}" for k, v in choice.usage_metrics(usages).items()}


def make_execution(
    serial: bool,
    workers: int | None,
    address: str | None = None,
    agent: str = "reference",
    traces_uri: str | None = None,
) -> Execution:
    """Where and how episodes run; the budget is the command's --episode-* options."""
    from experiments.evaluation.dispatch import Execution
    from harness.engine.budget import Budget

    ctx = click.get_current_context(silent=True)
    given = {} if ctx is None else ctx.meta.get(_BUDGET, {})
    budget = Budget(
        seconds=given.get("episode_timeout", Budget.seconds),
        memory_mb=given.get("episode_memory", Budget.memory_mb),
    )
    if not serial and address is None:  # a local cluster's niceness, checked before it starts
        from harness.engine.ray_tasks import worker_niceness

        worker_niceness()
    return Execution(
        serial=serial,
        workers=workers,
        address=address,
        agent=agent,
        traces_uri=traces_uri,
        budget=budget,
        agent_options=agent_options(agent),
    )


def traces_uri_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A shared trace location must be a URI pyarrow can open, checked before anything runs."""
    if value is None:
        return None
    from harness.engine.store import filesystem, is_uri

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


def secret_bearing(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A store's URL may carry a password: it is used, never shown, logged or written."""
    return remember(value)


TRACES_URI_HELP = (
    "a URI every Ray worker can write and this machine read (file:// on a "
    "shared mount, s3://, gs://): workers write the traces there and send "
    "back only measured values"
)


def references_of(scenarios) -> dict[str, dict[str, tuple[float, str]]]:  # type: ignore[no-untyped-def]
    """The published reaches the scenarios name, for the reports' diffusion curves."""
    return {
        s.name: {r.proposition: (r.reach, r.source) for r in s.references}
        for s in scenarios
        if s.references
    }


def write_card(  # type: ignore[no-untyped-def]
    card,
    traces,
    json_path: Path,
    comparison=None,
    title: str = "villagelab scorecard",
    context: dict[str, str] | None = None,
    scenarios=(),
) -> list[Path]:
    """The scorecard JSON and, beside it, the markdown and HTML reports (`context`: what was
    run — policy file, scenarios, seeds, date; `scenarios`: those run, for the published
    reaches they name)."""
    from scorecards.report import write_reports

    card.write_json(json_path)
    md, html = write_reports(
        card,
        traces,
        json_path.parent,
        comparison=comparison,
        title=title,
        context=context,
        references=references_of(scenarios),
    )
    out.say(f"scorecard: {json_path}\nreport: {md}\nreport_html: {html}")
    return [md, html]


def exit_on_broken_guardrail(card) -> None:  # type: ignore[no-untyped-def]
    """Exit 1 when the scorecard breaks a guardrail (the README's rule, everywhere)."""
    broken = [name for name, g in card.guardrails.items() if not g.ok]
    if broken:
        err.say(f"guardrail broken: {', '.join(broken)} (exit 1)")
        sys.exit(1)


def store(runs_dir: Path, tracking_uri: str | None) -> tuple[str, Path]:
    """The MLflow store to log to, and the folder its local artifacts go under."""
    from experiments.stores.runs_folder import RunsDir

    runs = RunsDir(runs_dir)
    runs.root.mkdir(parents=True, exist_ok=True)
    return tracking_uri or runs.tracking_uri, runs.artifacts


def mlflow_options(command: Command) -> Command:
    """--mlflow, --runs-dir and --tracking-uri: log this command as an MLflow run."""
    command = click.option(
        "--tracking-uri",
        callback=secret_bearing,
        help="MLflow tracking URI for --mlflow (default: the runs folder's SQLite store)",
    )(command)
    command = click.option(
        "--runs-dir",
        type=click.Path(path_type=Path),
        default=Path("runs"),
        show_default=True,
        help="the run store for --mlflow",
    )(command)
    return click.option(
        "--mlflow",
        "to_mlflow",
        is_flag=True,
        help="also log an MLflow run (scorecard and reports as artifacts) in the run store",
    )(command)


def invocation() -> str:
    """How to run this command again from the same folder: `villagelab` when that is what
    the shell finds, else the path it was started by (e.g. .venv/bin/villagelab)."""
    import os
    import shutil

    started = sys.argv[0] if sys.argv and sys.argv[0] else "villagelab"
    found = shutil.which("villagelab")
    if found and Path(found).resolve() == Path(started).resolve():
        return "villagelab"
    if started.endswith(".py"):  # python -m experiments.cli.main
        return shell_join([sys.executable, "-m", "experiments.cli.main"])
    if os.sep not in started:  # started by name from somewhere the shell looks
        return found or started
    return started


def with_option(args: list[str], option: str, value: str) -> list[str]:
    """`args` with `option` set to `value` (replaced where given, else appended)."""
    out_args = list(args)
    for i, arg in enumerate(out_args):
        if arg == option and i + 1 < len(out_args):
            out_args[i + 1] = value
            return out_args
        if arg.startswith(option + "="):
            out_args[i] = f"{option}={value}"
            return out_args
    return [*out_args, option, value]


def shell_join(args: list[str]) -> str:
    import shlex

    return shlex.join(args)


def _suite(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A suite name or file, checked now (exit 2 naming the choices), or None."""
    if value is None:
        return None
    from scenarios import load_suite

    load_suite(value)
    return value


suite_option = click.option(
    "--suite",
    callback=_suite,
    help="a suite of scenarios: main (the village), companion (characters who talk with "
    "people outside the simulation), workflow (people who hand work to each other), research "
    "(agents who read and cite sources), or a suite file",
)


def suite_scenarios(suite: str | None) -> tuple[str, ...]:
    """The scenarios of a suite (none when no suite is given)."""
    if suite is None:
        return ()
    from scenarios import load_suite

    return load_suite(suite).scenarios


def model_proposer(
    proposer: Proposer, config_path: Path | None, runs_dir: Path, study: str
) -> ModelProposer | None:
    """`--proposer llm --proposer-config FILE` as the search's model proposer (the config
    validated and, for `structured_output: auto`, probed here: bad input exits 2 before
    anything runs); None for the rules."""
    if proposer is Proposer.RULES:
        if config_path is not None:
            raise InputError("--proposer-config: only --proposer llm takes a model config")
        return None
    if config_path is None:
        raise InputError("--proposer llm: expected --proposer-config FILE (the model endpoint)")
    from experiments.search.model_proposal import ModelProposer
    from harness.agents.llm import load_llm_config
    from harness.agents.llm.calls import LLMFailure

    config = load_llm_config(config_path, need_key=True)
    remember(config.endpoint.base_url)
    try:
        return ModelProposer(config, runs_dir.resolve(), study)
    except LLMFailure as exc:
        raise InputError(f"{config_path}: the proposer's model cannot be used: {exc}") from None


# the run store, for the commands that read what a search left (champion, report)
runs_option = click.option(
    "--runs-dir", type=click.Path(path_type=Path), default=Path("runs"), show_default=True
)
uri_option = click.option(
    "--tracking-uri",
    callback=secret_bearing,
    help="MLflow tracking URI (default: the runs folder's SQLite store)",
)
