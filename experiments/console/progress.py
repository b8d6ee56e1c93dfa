"""Progress a person can watch on the terminal (stderr), for episodes and for trials."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from experiments.console.terminal import Terminal, clean
from experiments.search.study import Decision


def _bar(console: Console) -> Progress:
    # notes hold scenario names and reasons: shown as text, never parsed as markup
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[note]}", markup=False),
        console=console,
        transient=True,
    )


@contextmanager
def episode_progress(terminal: Terminal, total: int) -> Iterator[Callable[[Any], None]]:
    with _bar(terminal.console) as bar:
        task = bar.add_task("episodes", total=total, note="")

        def advance(record: Any) -> None:
            bar.update(
                task, advance=1, note=clean(f"{record.scenario}/{record.seed} {record.status}")
            )

        yield advance


@contextmanager
def trial_progress(
    terminal: Terminal, total: int, hours: float | None = None
) -> Iterator[Callable[[Any], None]]:
    """Trials done, pruned and promoted, the champion's objective, and time left."""
    import time

    began = time.monotonic()
    counts = {Decision.PROMOTED: 0, Decision.PRUNED: 0}
    with _bar(terminal.console) as bar:
        task = bar.add_task("trials", total=total, note="")

        def report(outcome: Any) -> None:
            counts[outcome.decision] = counts.get(outcome.decision, 0) + 1
            left = ""
            if hours is not None:
                left = f", {max(0.0, hours * 3600 - (time.monotonic() - began)) / 60:.0f} min left"
            bar.update(
                task,
                advance=1,
                note=f"{counts[Decision.PROMOTED]} promoted, "
                f"{counts[Decision.PRUNED]} pruned, champion "
                f"{outcome.champion_objective:.3f}{left}",
            )
            measured = (
                ""
                if outcome.objective != outcome.objective  # NaN: not measured
                else f"objective {outcome.objective:.4f}"
                + ("" if outcome.feasible else " but a guardrail broken")
                + ", "
            )
            terminal.say(
                f"trial {outcome.label or outcome.number}: {outcome.decision} "
                f"({measured}champion {outcome.champion_objective:.4f}, "
                f"{outcome.seconds:.1f} s) {outcome.reason}"
            )

        yield report
