"""The trace tables: one fixed, versioned Arrow schema per table (DESIGN §4).

Traces are a public interface: the core columns below are fixed; a later schema version may
add columns, never rename or drop these. Every table starts with scenario, seed, tick, event_id.
"""

from __future__ import annotations

import pyarrow as pa

SCHEMA_VERSION = "1"

_KEY = [
    pa.field("scenario", pa.string(), nullable=False),
    pa.field("seed", pa.int64(), nullable=False),
    pa.field("tick", pa.int64(), nullable=False),
    pa.field("event_id", pa.int64(), nullable=False),
]


def _schema(*fields: pa.Field) -> pa.Schema:
    return pa.schema(_KEY + list(fields), metadata={"villagelab.schema_version": SCHEMA_VERSION})


TABLES: dict[str, pa.Schema] = {
    # the scenario's ground truth, written once per episode
    "truth": _schema(
        pa.field("proposition", pa.string()),
        pa.field("value", pa.string()),
        pa.field("modality", pa.string()),
        pa.field("origin", pa.string()),
        pa.field("private", pa.bool_()),
        pa.field("audience", pa.list_(pa.string())),
        pa.field("valid_from", pa.int64()),
        pa.field("valid_to", pa.int64()),
    ),
    # what each agent could perceive about a tracked proposition, recorded by the harness
    "exposures": _schema(
        pa.field("agent", pa.string()),
        pa.field("proposition", pa.string()),
        pa.field("value", pa.string()),
        pa.field("modality", pa.string()),
        pa.field("channel", pa.string()),
        pa.field("from_agent", pa.string()),
    ),
    # the world's event ledger: scheduled events, encounters, resource moves
    "events": _schema(
        pa.field("kind", pa.string()),
        pa.field("place", pa.string()),
        pa.field("agent", pa.string()),
        pa.field("detail", pa.string()),
    ),
    "utterances": _schema(
        pa.field("speaker", pa.string()),
        pa.field("listener", pa.string()),
        pa.field("claim_id", pa.int64()),
        pa.field("proposition", pa.string()),
        pa.field("value", pa.string()),
        pa.field("modality", pa.string()),
        pa.field("stated_source", pa.string()),
        pa.field("privacy", pa.string()),
        pa.field("text", pa.string()),
    ),
    # one row per change of an agent's belief (internal diagnostics)
    "beliefs": _schema(
        pa.field("agent", pa.string()),
        pa.field("proposition", pa.string()),
        pa.field("value", pa.string()),
        pa.field("confidence", pa.float64()),
        pa.field("modality", pa.string()),
        pa.field("origin", pa.string()),
        pa.field("told_by", pa.string()),
        pa.field("status", pa.string()),
    ),
    "actions": _schema(
        pa.field("agent", pa.string()),
        pa.field("action", pa.string()),
        pa.field("target", pa.string()),
        pa.field("plan_id", pa.int64()),
        pa.field("ok", pa.bool_()),
        pa.field("decision_point", pa.string()),
        # labelled by the harness for actions that answer a decision point: the deciding
        # proposition, and whether the action is right given its true value
        pa.field("proposition", pa.string()),
        pa.field("in_line", pa.bool_()),
    ),
    "probes": _schema(
        pa.field("agent", pa.string()),
        pa.field("probe_id", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("proposition", pa.string()),
        pa.field("answer_value", pa.string()),
        pa.field("answer_modality", pa.string()),
        pa.field("answer_source", pa.string()),
    ),
}

TABLE_NAMES: tuple[str, ...] = tuple(TABLES)


def empty_table(name: str) -> pa.Table:
    return TABLES[name].empty_table()


def to_table(name: str, rows: list[dict]) -> pa.Table:
    """Build a table of the fixed schema from row dicts (missing nullable columns become null)."""
    schema = TABLES[name]
    columns = {f.name: [row.get(f.name) for row in rows] for f in schema}
    return pa.table(columns, schema=schema)
