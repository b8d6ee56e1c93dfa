"""Typed diagnostic rows: an agent's internal traces, written to their own tables, never
scored. The row types are registered (`diagnostic_row`): the engine's own here (memory
operations, belief and trust changes, state samples, plan notes) write the engine's tables; an
agent's own (the LLM agent's model calls, the companion's lessons, a plug-in's) write the
tables they declare (declared.py). The harness reads only `MemoryOp.experience_owner` (its
isolation check) and sums what a row type declares summed (`usage`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, is_dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, TypeVar

import pyarrow as pa
import pyarrow.compute as pc

from .declared import TableDeclaration, declaration, sums_of
from .kinds import BeliefStatus, Modality, coerce_enums
from .records import quick_init
from .schema import AGENT_TABLES, TABLES

if TYPE_CHECKING:  # agents import these rows; the recorder is the engine's
    from .recorder import Recorder


Row = TypeVar("Row", bound=type)


class _Registered(NamedTuple):
    values: Callable[[Any], Any]  # a row → `Recorder.add_row`'s row (or a snapshot's cells)
    summed: Callable[[pa.Table], dict[str, float]] | None


_ROWS: dict[type, _Registered] = {}  # in registration order


def diagnostic_row(kind: Row) -> Row:
    """Register a row type an agent may hand the harness: a dataclass whose `table` names
    either one of the engine's internal tables (its fields are that table's columns; a type
    that makes several rows gives their cells itself, `cells`) or a table of the agent's own,
    which its fields declare (declared.py). A type may declare `summed`: a function of its
    table to the figures a search logs per trial (the model calls' tokens), so the runner
    sums what the agent declares; a declared table may instead name the columns it sums
    (`sums`), which works across the process boundary too."""
    table = getattr(kind, "table", None)
    if not is_dataclass(kind) or not isinstance(table, str):
        raise TypeError(f"{kind.__qualname__}: a diagnostic row is a dataclass naming a table")
    if table in TABLES and table not in AGENT_TABLES:
        raise TypeError(
            f"{kind.__qualname__}: table {table!r} is what the harness saw, written by the "
            f"harness only; expected one of {', '.join(AGENT_TABLES)} or a table of its own"
        )
    if table not in TABLES:
        declared = declaration(kind)  # TypeError unless its fields are plain
        columns: tuple[str, ...] = ("minute", "event_id", *(c for c, _ in declared.columns))
        _DECLARED[kind] = declared
    else:
        columns = ("minute", "event_id", *TABLES[table].names[4:])
    cells = getattr(kind, "cells", None)
    names = [f.name for f in fields(kind)]
    strange = [n for n in names if n not in columns]
    if strange and cells is None:
        raise TypeError(f"{kind.__qualname__}: {', '.join(strange)}: not columns of {table}")
    _ROWS[kind] = _Registered(cells or _values(columns, set(names)), getattr(kind, "summed", None))
    return kind


_DECLARED: dict[type, TableDeclaration] = {}  # the registered row types of agents' own tables


@dataclass(frozen=True)
class DeclaredRow:
    """A row of an agent's own table as it crosses the process boundary: the table's name and
    the row's cells (minute, event id, its columns in order), so the episode's process records
    it without the agent's row type (its code never runs there)."""

    table: str
    cells: tuple[Any, ...]


def wire(rows: list[Any]) -> list[Any]:
    """An agent's rows for the trip across the boundary (on the agent's side): those of its
    own tables as `DeclaredRow`s, the engine's as they are."""
    return [
        DeclaredRow(type(row).table, tuple(_ROWS[type(row)].values(row)))
        if type(row) in _DECLARED
        else row
        for row in rows
    ]


def _values(columns: tuple[str, ...], names: set[str]) -> Callable[[Any], Any]:
    """A row's minute, event id and values in its table's column order, a column the row type
    lacks as null: one getter per type, made when it is registered."""
    if all(c in names for c in columns):
        return attrgetter(*columns)
    return lambda row: tuple(getattr(row, c) if c in names else None for c in columns)


def record(agent: str, rows: list[Any], rec: Recorder) -> None:
    """An agent's diagnostic rows into their tables: rows of registered types only, rows of
    its own tables only of those its factory declared, each value of its column's type, and
    state rows naming the agent's own variables only (TypeError otherwise)."""
    add, last, declared = rec.add_row, None, False
    values: Callable[[Any], Any]  # the current kind's getter and table, set at its first row
    table: str
    for row in rows:
        kind = type(row)
        if kind is not last:  # rows come in runs of a kind (an hour's state samples)
            last, declared = kind, kind is DeclaredRow or kind in _DECLARED
            registered = _ROWS.get(kind)
            if registered is None and not declared:
                expected = ", ".join(k.__name__ for k in _ROWS)
                raise TypeError(f"agent {agent}: a diagnostic row {row!r}; expected {expected}")
            if registered is not None:
                values, table = registered.values, kind.table
        if declared:  # a row of a table of its own: checked against what its agent declared
            cells = row.cells if kind is DeclaredRow else values(row)
            add(row.table, rec.declared_cells(agent, row.table, cells))
            continue
        if table == "state":  # the state table's rows are StateSample or StateSnapshot
            own_state(agent, row)
        add(table, values(row))


def row_types() -> tuple[type, ...]:
    """Every registered row type (an agent package's once it is imported)."""
    return tuple(_ROWS)


def usage(tables: Mapping[str, pa.Table]) -> dict[str, float]:
    """An episode's figures that its tables declare summed (empty for an agent that declares
    none): what a search logs per trial without shipping the tables. A row type of ours
    registered here may sum its table itself (`summed`); any declared table sums the columns
    its file names (`sums`), as `<table>.rows` and `<table>.<column>`."""
    out: dict[str, float] = {}
    summing = {
        kind.table: summed  # type: ignore[attr-defined]
        for kind, (_, summed) in _ROWS.items()
        if summed is not None
    }
    for name, table in tables.items():
        if name in TABLES or not table.num_rows:
            continue
        if name in summing:
            out.update(summing[name](table))
            continue
        columns = sums_of(table.schema)
        if columns:
            out[f"{name}.rows"] = float(table.num_rows)
        for column in columns:
            out[f"{name}.{column}"] = float(pc.sum(table[column]).as_py() or 0)
    return out


@diagnostic_row
@quick_init
@dataclass(frozen=True)
class MemoryOp:
    table: ClassVar[str] = "memory_ops"
    minute: int
    event_id: int
    agent: str
    op: str  # write / retrieve / evict / summarise / reflect
    experience_id: int | None = None
    experience_owner: str | None = None  # the harness's isolation check reads this
    purpose: str | None = None
    subject: str | None = None
    rank: int | None = None
    relevant: bool | None = None
    importance: float | None = None
    size: int | None = None
    capacity: int | None = None


@diagnostic_row
@quick_init
@dataclass(frozen=True)
class BeliefChange:
    table: ClassVar[str] = "beliefs"
    ENUMS: ClassVar[dict[str, type]] = {"modality": Modality, "status": BeliefStatus}
    minute: int
    event_id: int
    agent: str
    proposition: str
    value: str
    confidence: float
    modality: Modality
    origin: str | None
    told_by: str | None
    status: BeliefStatus

    __post_init__ = coerce_enums  # type: ignore[misc]  # quick_init inlines this very function


@diagnostic_row
@quick_init
@dataclass(frozen=True)
class TrustChange:
    table: ClassVar[str] = "trust"
    minute: int
    event_id: int
    agent: str
    other: str
    domain: str  # reports_facts / keeps_secrets / returns_things
    value: float
    reason: str


@diagnostic_row
@quick_init
@dataclass(frozen=True)
class StateSample:
    table: ClassVar[str] = "state"
    minute: int
    event_id: int
    agent: str
    variable: str
    value: float


@diagnostic_row
@quick_init
@dataclass(frozen=True)
class StateSnapshot:
    """One agent's state samples at one minute, as `StateSample`s of each variable in turn
    would be: one `state` row per variable (an hourly snapshot is one record, not eight)."""

    table: ClassVar[str] = "state"
    minute: int
    event_id: int
    agent: str
    variables: tuple[str, ...]
    values: tuple[float, ...]

    def cells(self) -> list[object]:
        """The rows' values one after another, each as (minute, event id, agent, variable,
        value): `Recorder.add_row`'s cells of all of them."""
        cells: list[object] = [self.minute, self.event_id, self.agent, None, None] * len(
            self.variables
        )
        cells[3::5] = self.variables  # a length that differs is a ValueError
        cells[4::5] = self.values
        return cells


@diagnostic_row
@quick_init
@dataclass(frozen=True)
class PlanNote:
    table: ClassVar[str] = "plans"
    minute: int
    event_id: int
    agent: str
    plan_id: int | None
    goal: str
    day: int
    action: str
    target: str
    reason: str


INVENTORY = "inventory:"  # the state variables the harness writes: what each holder has


def own_state(agent: str, row: StateSample | StateSnapshot) -> None:
    """An agent's state rows name its own variables, never the harness's inventory counts (the
    conservation recount reads those: no agent may write them). TypeError otherwise."""
    variables = row.variables if isinstance(row, StateSnapshot) else (row.variable,)
    if any(str(v).startswith(INVENTORY) for v in variables):
        raise TypeError(f"agent {agent}: a state row names a harness variable ({INVENTORY}...)")
