"""Tables an agent declares: row types of its own (its model calls, its reflections, its
costs), each recorded as a Parquet table of its own beside the harness's.

A factory names its row types (`row_types`); each is a dataclass registered with
`diagnostics.diagnostic_row` whose `table` is a name the harness does not use and whose fields
are plain: `minute` and `event_id` first, then text, integers, numbers, flags, or tuples of
text, integers or numbers, any of them optional. Its `sums` may name numeric columns an
episode adds up (calls' tokens, cost), which a search logs per trial.

A declaration is plain data (`TableDeclaration`): it crosses the process boundary as such, so
the episode's process records an isolated agent's table without ever importing its code, and
every file of the table carries its columns, its sums and the schema version.
"""

from __future__ import annotations

import re
import types
from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass
from enum import StrEnum
from typing import Any, Union, get_args, get_origin, get_type_hints

import pyarrow as pa

from .schema import KEY, SCHEMA_VERSION, TABLES

NAME = re.compile(r"^[a-z][a-z0-9_]*$")  # a folder name, a column name and a metric key
SUMS = "villagelab.sums"  # the schema metadata key of the columns an episode sums


class ColumnType(StrEnum):
    """What a declared column holds (its Arrow type's name)."""

    TEXT = "string"
    INTEGER = "int64"
    NUMBER = "double"
    FLAG = "bool"
    TEXTS = "list<item: string>"
    INTEGERS = "list<item: int64>"
    NUMBERS = "list<item: double>"

    def arrow(self) -> pa.DataType:
        return _ARROW[self]

    def holds(self, value: object) -> bool:
        """Whether a row's value fits this column (None fits every column)."""
        if value is None:
            return True
        if self in _ITEMS:
            item = _ITEMS[self]
            return isinstance(value, (tuple, list)) and all(_plain(v, item) for v in value)
        return _plain(value, _PYTHON[self])


_ARROW = {
    ColumnType.TEXT: pa.string(),
    ColumnType.INTEGER: pa.int64(),
    ColumnType.NUMBER: pa.float64(),
    ColumnType.FLAG: pa.bool_(),
    ColumnType.TEXTS: pa.list_(pa.string()),
    ColumnType.INTEGERS: pa.list_(pa.int64()),
    ColumnType.NUMBERS: pa.list_(pa.float64()),
}
_PYTHON: dict[ColumnType, type] = {
    ColumnType.TEXT: str,
    ColumnType.INTEGER: int,
    ColumnType.NUMBER: float,
    ColumnType.FLAG: bool,
}
_ITEMS: dict[ColumnType, type] = {
    ColumnType.TEXTS: str,
    ColumnType.INTEGERS: int,
    ColumnType.NUMBERS: float,
}
_NUMERIC = (ColumnType.INTEGER, ColumnType.NUMBER)


def _plain(value: object, kind: type) -> bool:
    if kind is float:  # an integer is a number too; a flag is neither
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


@dataclass(frozen=True)
class TableDeclaration:
    """One table an agent declares: its name, its columns past the key columns (scenario,
    seed, tick, event_id; a row's `minute` becomes its tick) and the columns summed per
    episode."""

    name: str
    columns: tuple[tuple[str, ColumnType], ...]
    sums: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise ValueError(f"table {self.name!r}: {problem}")

    def _problem(self) -> str | None:
        if not NAME.match(self.name):
            return "expected a snake_case name (lower-case letters, digits and _)"
        if self.name in TABLES:
            return "the harness's own table; expected a name of the agent's own"
        names = [c for c, _ in self.columns]
        taken = {"scenario", "seed", "tick", "event_id", "minute"}
        for column in names:
            if not NAME.match(column) or column in taken:
                return f"column {column!r}: expected a snake_case name other than {sorted(taken)}"
        if len(set(names)) != len(names):
            return "a column named twice"
        kinds = dict(self.columns)
        for column in self.sums:
            if kinds.get(column) not in _NUMERIC:
                return f"sums {column!r}: expected one of its integer or number columns"
        return None

    def row(self, cells: Iterable[Any]) -> tuple[Any, ...]:
        """A row's cells (minute, event id, its columns in order), checked to fit this table
        (TypeError naming the column otherwise: a row that would fail when written)."""
        row = tuple(cells)
        if len(row) != len(self.columns) + 2 or not all(_plain(v, int) for v in row[:2]):
            raise TypeError(f"a row of {self.name} is not (minute, event_id, its columns)")
        for (column, kind), value in zip(self.columns, row[2:], strict=True):
            if not kind.holds(value):
                raise TypeError(f"{self.name}.{column} = {value!r}; expected {kind.name.lower()}")
        return row

    def schema(self) -> pa.Schema:
        fields_ = [*KEY, *(pa.field(c, kind.arrow()) for c, kind in self.columns)]
        metadata = {"villagelab.schema_version": SCHEMA_VERSION, SUMS: ",".join(self.sums)}
        return pa.schema(fields_, metadata=metadata)

    def to_plain(self) -> tuple[str, list[tuple[str, str]], list[str]]:
        """What crosses the process boundary: names and type names only."""
        return self.name, [(c, str(kind)) for c, kind in self.columns], list(self.sums)

    @classmethod
    def from_plain(cls, plain: Any) -> TableDeclaration:
        """A declaration from the agent's side, checked (ValueError when it is not one)."""
        try:
            name, columns, sums = plain
            return cls(
                str(name),
                tuple((str(c), ColumnType(kind)) for c, kind in columns),
                tuple(str(s) for s in sums),
            )
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a table declaration ({exc})") from None


def declaration(kind: type) -> TableDeclaration:
    """The table a row type declares, from its fields' annotations (TypeError when a field
    is not plain, or the first two are not `minute` and `event_id`)."""
    if not is_dataclass(kind):
        raise TypeError(f"{kind.__qualname__}: a row type is a dataclass")
    hints = get_type_hints(kind)
    names = [f.name for f in fields(kind)]
    if names[:2] != ["minute", "event_id"]:
        raise TypeError(f"{kind.__qualname__}: expected its first fields to be minute, event_id")
    columns = []
    for name in names[2:]:
        column = _column_type(hints[name])
        if column is None:
            raise TypeError(
                f"{kind.__qualname__}.{name}: {hints[name]!r} is not a plain type; expected "
                "str, int, float, bool or a tuple of str, int or float (optional or not)"
            )
        columns.append((name, column))
    try:
        return TableDeclaration(
            getattr(kind, "table", ""), tuple(columns), tuple(getattr(kind, "sums", ()))
        )
    except ValueError as exc:
        raise TypeError(f"{kind.__qualname__}: {exc}") from None


def _column_type(hint: Any) -> ColumnType | None:
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):  # X | None
        rest = [a for a in get_args(hint) if a is not type(None)]
        return _column_type(rest[0]) if len(rest) == 1 else None
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return next((c for c, item in _ITEMS.items() if item is args[0]), None)
        return None
    return next((c for c, kind in _PYTHON.items() if kind is hint), None)


def declarations_of(factory: Any) -> tuple[TableDeclaration, ...]:
    """The tables an agent factory declares (`row_types`), each once, in its order."""
    kinds: Iterable[type] = getattr(factory, "row_types", ())
    out: dict[str, TableDeclaration] = {}
    for kind in kinds:
        declared = declaration(kind)
        if out.setdefault(declared.name, declared) != declared:
            raise TypeError(f"{kind.__qualname__}: table {declared.name!r} declared twice, apart")
    return tuple(out.values())


def sums_of(schema: pa.Schema) -> tuple[str, ...]:
    """The columns a declared table's file says an episode sums."""
    text = (schema.metadata or {}).get(SUMS.encode(), b"").decode()
    return tuple(c for c in text.split(",") if c)
