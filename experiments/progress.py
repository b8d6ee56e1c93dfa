"""Progress a person can watch on the terminal (stderr), for episodes and for trials."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


def _bar(console: Console) -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("{task.fields[note]}"), console=console,
                    transient=True)


@contextmanager
def episode_progress(console: Console, total: int) -> Iterator[Callable[[Any], None]]:
    with _bar(console) as bar:
        task = bar.add_task("episodes", total=total, note="")

        def advance(record: Any) -> None:
            bar.update(task, advance=1, note=f"{record.scenario}/{record.seed} {record.status}")

        yield advance


@contextmanager
def trial_progress(console: Console, total: int) -> Iterator[Callable[[Any], None]]:
    with _bar(console) as bar:
        task = bar.add_task("trials", total=total, note="")

        def report(outcome: Any) -> None:
            bar.update(task, advance=1, note=f"trial {outcome.number} {outcome.decision}, "
                       f"champion {outcome.champion_objective:.3f}")
            console.print(f"trial {outcome.number}: objective {outcome.objective:.4f} → "
                          f"{outcome.decision} (champion {outcome.champion_objective:.4f}, "
                          f"{outcome.seconds:.1f} s)")

        yield report
