"""The metric record and the registry that every metric module adds itself to (design §5)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import pandas as pd
import pyarrow as pa

from harness.engine.schema import agent_reported

Episode = Mapping[str, pd.DataFrame]
"""The trace tables of one (scenario, seed) episode, by table name."""

T = TypeVar("T")


class EpisodeTables(Mapping[str, pd.DataFrame]):
    """An episode's tables that also remember frames derived from them (knowers, first
    exposures, ...), so metrics sharing a derivation compute it once per episode.

    Tables may be given as Arrow tables: each becomes a DataFrame only when a metric asks for
    it (converting every table cost more than most metrics), and `arrow` hands fast paths the
    Arrow table itself. Derived frames are shared: a metric must not modify what `derived`
    returns.
    """

    def __init__(self, tables: Mapping[str, pd.DataFrame | pa.Table]) -> None:
        self.sources: dict[str, pd.DataFrame | pa.Table] = dict(tables)
        self.frames: dict[str, pd.DataFrame] = {}
        self.memo: dict[str, Any] = {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        frame = self.frames.get(name)
        if frame is None:
            source = self.sources[name]
            frame = source.to_pandas() if isinstance(source, pa.Table) else source
            self.frames[name] = frame
        return frame

    def __iter__(self) -> Iterator[str]:
        return iter(self.sources)

    def __len__(self) -> int:
        return len(self.sources)

    def arrow(self, name: str) -> pa.Table | None:
        """Table `name` as given when it was given as Arrow (None otherwise or when absent)."""
        source = self.sources.get(name)
        return source if isinstance(source, pa.Table) else None


def derived(episode: Episode, name: str, build: Callable[[Episode], T]) -> T:
    """`build(episode)`, computed once per `EpisodeTables` (every time for a plain mapping)."""
    memo = getattr(episode, "memo", None)
    if memo is None:
        return build(episode)
    if name not in memo:
        memo[name] = build(episode)
    return memo[name]


Direction = Literal["max", "min"]

# Trace tables an agent fills about itself (its diagnostic rows, `agent_reported`): what it
# says of its own memory, beliefs, trust, state and plans, and every table it declares (model
# calls, lessons). Nothing in them is evidence: an agent may write anything there, or nothing.
# `state` also holds the harness's own inventory snapshots, read as `state:inventory` (agents
# may not write those variables).
HARNESS_ROWS = {"state:inventory": "state"}  # harness-written rows of an agent-reported table


def self_reported_table(table: str) -> bool:
    """Whether what a metric reads from `table` is what agents report of themselves (the
    harness's rows of such a table, `HARNESS_ROWS`, are not)."""
    return table not in HARNESS_ROWS and agent_reported(table)


_NAME = re.compile(r"^[a-z][a-z0-9_]*$")  # snake_case: a name MLflow accepts as a metric key


@dataclass(frozen=True)
class Metric:
    """A named, directed, bounded measure of one episode; `fn` returns None when absent.
    `reads` names the trace tables it reads (a test holds it to what it does read)."""

    name: str
    direction: Direction
    range: tuple[float, float]
    definition: str
    internal: bool
    fn: Callable[[Episode], float | None]
    reads: tuple[str, ...]

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"metric name {self.name!r} is not snake_case")
        if self.direction not in ("max", "min"):
            raise ValueError(f"metric {self.name}: direction must be 'max' or 'min'")
        lo, hi = self.range
        if not (math.isfinite(lo) and lo < hi):
            raise ValueError(f"metric {self.name}: range must be (finite lo, hi > lo)")
        if not self.definition or "\n" in self.definition:
            raise ValueError(f"metric {self.name}: the definition is one non-empty line")
        if not self.reads:
            raise ValueError(f"metric {self.name}: reads names no trace table")

    @property
    def self_reported(self) -> bool:
        """Whether it reads what an agent says about itself (`self_reported_table`): never
        evidence, so never weighed in the objective."""
        return any(self_reported_table(table) for table in self.reads)

    @property
    def bounded(self) -> bool:
        """Whether the range is finite on both ends (needed to enter the objective)."""
        return math.isfinite(self.range[1])

    def evaluate(self, episode: Episode) -> float | None:
        """The metric of one episode, checked: None (absent) or a finite value within range."""
        value = self.fn(episode)
        if value is None:
            return None
        value = float(value)
        lo, hi = self.range
        if not (math.isfinite(value) and lo <= value <= hi):
            raise ValueError(f"metric {self.name} gave {value!r}, outside its range [{lo}, {hi}]")
        return value


METRICS: dict[str, Metric] = {}
"""Every registered metric by name; filled when `scorecards.metrics` is imported."""


def register(metric: Metric) -> Metric:
    """Add a metric to METRICS; a name is registered once."""
    if metric.name in METRICS:
        raise ValueError(f"metric {metric.name!r} is registered twice")
    METRICS[metric.name] = metric
    return metric
