"""What the commands share: the terminals, the --seeds, --agent and --traces-uri options, and
how a run's execution (serial, Ray, the agent) and its scorecard files are made."""

from __future__ import annotations

from pathlib import Path

import click

from scenarios import parse_seeds
from villagelab.safe_text import remember

from ..terminal import Terminal

out = Terminal()
err = Terminal(stderr=True)


def seeds_option(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        return parse_seeds(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def agent_option(command):  # type: ignore[no-untyped-def]
    """--agent on every command that runs episodes: a registered name (the built-in ones and
    installed packages' `villagelab.agents` entry points) or an import path module:Factory;
    checked, and its code hashed, before any episode runs."""
    from harness.agents.registry import describe

    return click.option(
        "--agent",
        "agent_kind",
        default="reference",
        show_default=True,
        metavar="NAME|module:Factory",
        help=f"the agent: {describe()}",
    )(command)


def make_execution(
    serial: bool,
    workers: int | None,
    address: str | None = None,
    agent: str = "reference",
    traces_uri: str | None = None,
):  # type: ignore[no-untyped-def]
    from ..evaluation import Execution

    return Execution(
        serial=serial, workers=workers, address=address, agent=agent, traces_uri=traces_uri
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


def write_card(card, traces, json_path: Path, comparison=None) -> None:  # type: ignore[no-untyped-def]
    """The scorecard JSON and, beside it, the markdown and HTML reports."""
    from scorecards.report import write_reports

    card.write_json(json_path)
    md, html = write_reports(card, traces, json_path.parent, comparison=comparison)
    out.say(f"scorecard: {json_path}\nreport: {md}\nreport_html: {html}")
