"""The recorder: trace rows as the tick loop produces them, kept column-wise and turned into
Arrow record batches every `FLUSH` rows, so a long episode holds compact columns rather than
millions of dicts.

Between flushes a table's rows wait as plain values, row after row in one Python list - the
minute, the event id, then the further columns (each column is then a strided slice of it,
the tick worked out from the minute at the flush; the scenario and seed columns, the same on
every row, only as a count): appending a row is one `extend` and allocates no object the
garbage collector tracks, so a big village's trace does not make it sweep the whole heap
again and again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from .declared import TableDeclaration
from .schema import TABLE_NAMES, TABLES

FLUSH = 65_536  # rows of one table buffered as Python values before they become a batch


class Recorder:
    """Collects trace rows; every row carries scenario, seed, tick and the causing event id.
    Its tables are the harness's and those the episode's agent declares (`declare`)."""

    def __init__(self, scenario: str, seed: int, start: int, tick_minutes: int) -> None:
        self.scenario, self.seed = scenario, seed
        # scenario and seed as Arrow scalars (the same types in every table's schema)
        key = TABLES[TABLE_NAMES[0]]
        self._same = [pa.scalar(v, key.field(i).type) for i, v in enumerate((scenario, seed))]
        self._same_full: list[pa.Array] | None = None  # their columns for a full buffer's rows
        self.start, self.tick_minutes = start, tick_minutes
        self._schemas: dict[str, pa.Schema] = {}
        self._declared: dict[str, TableDeclaration] = {}
        self._columns: dict[str, list[str]] = {}
        self._widths: dict[str, int] = {}
        self._full: dict[str, int] = {}
        self._batches: dict[str, list[pa.RecordBatch]] = {}
        self._buffers: dict[str, list[Any]] = {}
        for name in TABLE_NAMES:
            self._table(name, TABLES[name])

    def _table(self, name: str, schema: pa.Schema) -> None:
        self._schemas[name] = schema
        # a table's columns past the four key columns, in its schema's order
        self._columns[name] = schema.names[4:]
        self._widths[name] = len(self._columns[name])
        # a table's buffer is full at FLUSH rows of minute, event id and the further columns
        self._full[name] = FLUSH * (self._widths[name] + 2)
        self._batches[name], self._buffers[name] = [], []

    def declare(self, declarations: Sequence[TableDeclaration]) -> None:
        """The tables the episode's agent declares, recorded beside the harness's (each
        written, rows or none)."""
        for declared in declarations:
            self._declared[declared.name] = declared
            self._table(declared.name, declared.schema())

    def declared_cells(self, agent: str, table: str, cells: Sequence[Any]) -> tuple[Any, ...]:
        """A row of an agent's own table as `add_row` takes it, checked: a table its agent
        declared, a minute and an event id, and a value of each column's type (TypeError
        otherwise: an agent's row that would fail when its table is written)."""
        declared = self._declared.get(table)
        if declared is None:
            known = ", ".join(self._declared) or "none"
            raise TypeError(
                f"agent {agent}: a row of table {table!r}, which its factory does not declare "
                f"(row_types; declared: {known})"
            )
        try:
            return declared.row(cells)
        except TypeError as exc:
            raise TypeError(f"agent {agent}: {exc}") from None

    def tick(self, minute: int) -> int:
        return (minute - self.start) // self.tick_minutes

    def add(self, table: str, minute: int, event_id: int, **columns: Any) -> None:
        """One row; a column the table does not name is ignored, one it names but is not
        given is null."""
        get = columns.get
        self.add_values(table, minute, event_id, [get(c) for c in self._columns[table]])

    def add_values(self, table: str, minute: int, event_id: int, values: Sequence[Any]) -> None:
        """One row whose columns past the key columns are `values`, in the schema's order
        (`columns` gives it): what `add` makes of them, without naming each."""
        if len(values) != self._widths[table]:  # one short row would shift every column
            raise ValueError(f"{table}: a row of {len(values)} values for {self.columns(table)}")
        self.add_row(table, (minute, event_id, *values))

    def add_row(self, table: str, row: tuple[Any, ...]) -> None:
        """One row as (minute, event id, the further columns in the schema's order), its
        length known right where it is made (a fixed tuple, a getter of `columns`): the
        hottest rows' way in, unchecked."""
        cells = self._buffers[table]
        cells.extend(row)
        if len(cells) >= self._full[table]:
            self._flush(table)

    def columns(self, table: str) -> tuple[str, ...]:
        """A table's columns past the key columns, in its schema's order."""
        return tuple(self._columns[table])

    def _flush(self, table: str) -> None:
        cells, schema = self._buffers[table], self._schemas[table]
        stride = self._widths[table] + 2
        rows = len(cells) // stride
        if rows:
            start, step = self.start, self.tick_minutes
            ticks = cells[0::stride]  # the minutes: the ticks, a tick a minute from minute 0
            if start != 0 or step != 1:
                ticks = [(minute - start) // step for minute in ticks]
            # the rows' values, column by column: event ids, then the further columns
            rest = [cells[i::stride] for i in range(1, stride)]
            # scenario and seed, the same on every row: repeated by Arrow, not converted
            if rows == FLUSH:  # a full buffer's: the same columns every time (immutable)
                if self._same_full is None:
                    self._same_full = [pa.repeat(scalar, rows) for scalar in self._same]
                same = self._same_full
            else:
                same = [pa.repeat(scalar, rows) for scalar in self._same]
            values = [*same, ticks, *rest]
            columns = dict(zip(schema.names, values, strict=True))
            self._batches[table].append(pa.RecordBatch.from_pydict(columns, schema=schema))
            self._buffers[table] = []

    def tables(self) -> dict[str, pa.Table]:
        out = {}
        for name, schema in self._schemas.items():
            self._flush(name)
            table = pa.Table.from_batches(self._batches[name], schema=schema)
            out[name] = table.combine_chunks()  # one chunk per column, as one batch would be
        return out

    def get_state(self) -> dict[str, list[dict[str, Any]]]:
        """Every row so far, as plain JSON-able dicts."""
        out = {}
        for name, schema in self._schemas.items():
            self._flush(name)
            out[name] = pa.Table.from_batches(self._batches[name], schema=schema).to_pylist()
        return out

    def set_state(self, rows: dict[str, list[dict[str, Any]]]) -> None:
        self._batches = {name: [] for name in self._schemas}
        self._buffers = {name: [] for name in self._schemas}
        for name, table_rows in rows.items():
            if table_rows:  # rows of a saved run keep their own scenario and seed
                schema = self._schemas[name]
                columns = {c: [row.get(c) for row in table_rows] for c in schema.names}
                self._batches[name].append(pa.RecordBatch.from_pydict(columns, schema=schema))
