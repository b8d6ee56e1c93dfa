"""The `villagelab` command line (design §9): the composition root.

Exit codes everywhere: 0 ok; 1 regression or broken guardrail; 2 bad input or error;
3 baseline missing, or made with another instrument or agent. A user's mistake never shows a
traceback.

Here and in the other modules of `experiments.cli`, a command imports what it runs inside its body: `villagelab --help`
and a refused input start without Optuna, Ray, pandas, pyarrow and MLflow (about 2.4 s less
on two cores; tests/test_layout.py holds it).
"""

from __future__ import annotations

import os
import sys
import traceback

import click

from experiments.cli import bench, champion, checks, files, running, searching
from experiments.cli.common import err
from experiments.console.terminal import scrub_output
from policies import InputError


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
    running.run,
    running.score,
    checks.gate,
    checks.sweep_command,
    bench.bench,
    searching.search,
    champion.champion,
    searching.report,
    searching.ui,
):
    cli.add_command(command)


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
