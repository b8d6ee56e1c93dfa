"""The trace tables: one fixed, versioned Arrow schema per table (design §4).

Traces are a public interface: the core columns below are fixed; a later schema version may
add columns, never rename or drop these. Every table starts with scenario, seed, tick, event_id.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyarrow as pa

SCHEMA_VERSION = "12"  # 2: events carry resource moves; actions carry request and horizon;
#                       observations, memory_ops, trust, state, plans, requests added
#                     3: actions carry status (ok / failed / invalid) and reason; utterances
#                       carry text_by (agent: its own words; harness: rendered)
#                     4: utterances carry scripted (a scenario's scripted line, never an
#                       agent's own); probes carry answer_origin and answer_replaced_by;
#                       truth carries supersedes
#                     5: decision_points added; utterances carry grounded; actions carry
#                       planned and chance; requests carry stance and reason
#                     6: llm_calls carry structured_output, outcome and tokens_reused
#                     7: llm_calls carry prompt and reply (what `villagelab inspect` shows)
#                     8: characters and report_windows added: a character's limits as typed
#                       columns, no longer the dialogue table's setup / hours / report rows
#                     9: decision_points carry `when` and `propositions` (a point decided
#                       by several propositions together); truth carries origins,
#                       origin_modalities and origin_ticks (several independent origins)
#                     10: decision_points carry `agents` (who decides; null: every agent)
#                     11: decision_points carry `concerns` (who counts at it, acting or not)
#                     12: llm_calls and lessons are no longer the engine's: the LLM and the
#                       reference agent declare them (declared.py), columns unchanged

KEY = [
    pa.field("scenario", pa.string(), nullable=False),
    pa.field("seed", pa.int64(), nullable=False),
    pa.field("tick", pa.int64(), nullable=False),
    pa.field("event_id", pa.int64(), nullable=False),
]


def _schema(*fields: pa.Field) -> pa.Schema:
    return pa.schema(KEY + list(fields), metadata={"villagelab.schema_version": SCHEMA_VERSION})


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
        pa.field("supersedes", pa.string()),  # the tracked proposition this one replaces
        # several independent origins (then `origin` is null and `modality` the surest of
        # theirs): each origin's agent, modality and the tick it was told, in step
        pa.field("origins", pa.list_(pa.string())),
        pa.field("origin_modalities", pa.list_(pa.string())),
        pa.field("origin_ticks", pa.list_(pa.int64())),
    ),
    # the scenario's decision points, written once per episode: which targets of `action` on
    # `day` (ticks `opens` to `closes`) are right given the deciding proposition's true value
    "decision_points": _schema(
        pa.field("decision_point", pa.string()),
        pa.field("proposition", pa.string()),
        pa.field("action", pa.string()),
        pa.field("day", pa.int64()),
        pa.field("opens", pa.int64()),
        pa.field("closes", pa.int64()),
        pa.field("right", pa.list_(pa.string())),
        # a point decided by several propositions (then `proposition` is null): how they
        # join (all_of / any_of) and which they are
        pa.field("when", pa.string()),
        pa.field("propositions", pa.list_(pa.string())),
        # who decides (null: every agent): only they answer it and only they count
        pa.field("agents", pa.list_(pa.string())),
        # who counts at it whether it acts or not (`Scenario.concerned`): its deciders, the
        # agents whose errand does its action that day, else the deciding truth's audience
        pa.field("concerns", pa.list_(pa.string())),
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
    # the world's event ledger: scheduled events, encounters, plans, milestones, resource moves.
    # A resource move has resource, holder (a place or an agent) and a signed delta; kind
    # 'source' / 'sink' are the scenario's declared ones, 'transfer' rows of one event net to 0.
    "events": _schema(
        pa.field("kind", pa.string()),
        pa.field("place", pa.string()),
        pa.field("agent", pa.string()),
        pa.field("detail", pa.string()),
        pa.field("resource", pa.string()),
        pa.field("holder", pa.string()),
        pa.field("delta", pa.int64()),
    ),
    # what reached an agent's senses past its attention filter (diagnostic)
    "observations": _schema(
        pa.field("agent", pa.string()),
        pa.field("kind", pa.string()),  # world_event / claim / action_result / request / sight
        pa.field("channel", pa.string()),
        pa.field("from_agent", pa.string()),
        pa.field("subject", pa.string()),
        pa.field("proposition", pa.string()),
        pa.field("detail", pa.string()),
    ),
    # memory operations (diagnostic, and the harness's isolation check): write, retrieve
    # (one row per returned experience; an empty retrieval is one row with a null experience),
    # strengthen, evict, summarise, reflect; missed (an observation the attention filter let
    # pass unnoticed: never written)
    "memory_ops": _schema(
        pa.field("agent", pa.string()),
        pa.field("op", pa.string()),
        pa.field("experience_id", pa.int64()),
        pa.field("experience_owner", pa.string()),
        pa.field("purpose", pa.string()),
        pa.field("subject", pa.string()),
        pa.field("rank", pa.int64()),
        pa.field("relevant", pa.bool_()),
        pa.field("importance", pa.float64()),
        pa.field("size", pa.int64()),
        pa.field("capacity", pa.int64()),
    ),
    # trust per pair and domain, one row per change (diagnostic)
    "trust": _schema(
        pa.field("agent", pa.string()),
        pa.field("other", pa.string()),
        pa.field("domain", pa.string()),  # reports_facts / keeps_secrets / returns_things
        pa.field("value", pa.float64()),
        pa.field("reason", pa.string()),
    ),
    # periodic snapshots in long form: agent states (energy, valence, ...) and, with
    # variable 'inventory:<resource>', the count each holder has (agent = the holder)
    "state": _schema(
        pa.field("agent", pa.string()),
        pa.field("variable", pa.string()),
        pa.field("value", pa.float64()),
    ),
    # every plan an agent made or changed (diagnostic)
    "plans": _schema(
        pa.field("agent", pa.string()),
        pa.field("plan_id", pa.int64()),
        pa.field("goal", pa.string()),  # the errand, commitment or request it serves
        pa.field("day", pa.int64()),
        pa.field("action", pa.string()),
        pa.field("target", pa.string()),
        pa.field("reason", pa.string()),  # routine / retrieved / replanned / notified / ...
    ),
    # the player's requests, recorded by the harness when made
    "requests": _schema(
        pa.field("request_id", pa.string()),
        pa.field("agent", pa.string()),
        pa.field("action", pa.string()),  # what would carry it out, e.g. deliver
        pa.field("item", pa.string()),
        pa.field("place", pa.string()),
        pa.field("deadline", pa.int64()),  # tick
        # the agent's protected stance this request meets, if any (what it forbids is the
        # request's action or item): the one a decline may invoke; reason: the stance's words
        pa.field("stance", pa.string()),
        pa.field("reason", pa.string()),
    ),
    # conversations with people outside the simulation (scenarios with a dialogue): the
    # scripted lines with their ground-truth tags (kind, tier: never shown to the agent) and
    # the gap since the speaker's previous line; the agent's replies and unprompted messages
    "dialogue": _schema(
        pa.field("agent", pa.string()),
        pa.field("at", pa.int64()),  # the simulated minute (since day 1 00:00)
        pa.field("speaker", pa.string()),
        pa.field("listener", pa.string()),
        pa.field("turn", pa.string()),  # line / reply / proactive
        pa.field("line_id", pa.string()),  # the line, or the line a reply answers
        pa.field("text", pa.string()),
        pa.field("proposition", pa.string()),
        pa.field("value", pa.string()),
        pa.field("kind", pa.string()),  # a line's kind (ground truth)
        pa.field("tier", pa.string()),  # a line's crisis tier (ground truth)
        pa.field("due", pa.int64()),  # a promise's tick; on a reply, the tick it offers instead
        pa.field("gap", pa.int64()),  # minutes since this speaker's previous line to the agent
    ),
    # the characters of a scenario with a dialogue, one row each at the start: its persona's
    # limits, for the scorecard
    "characters": _schema(
        pa.field("agent", pa.string()),
        # the episode's first minute and minutes per tick: other tables' ticks read as times,
        # minute = start + tick × minutes_per_tick
        pa.field("start", pa.int64()),
        pa.field("minutes_per_tick", pa.int64()),
        pa.field("messages_per_day", pa.int64()),  # unprompted messages a day at most
        pa.field("emergency", pa.list_(pa.string())),  # the numbers its safety script gives
        pa.field("sleeps", pa.int64()),  # the minute of the day it sleeps (a desk: closes)
        pa.field("wakes", pa.int64()),  # the minute of the day it wakes (a desk: opens)
    ),
    # how long a character holds a reading of each kind (the weather) current, in minutes: a
    # limit, like its budget; one row per character and kind, at the start
    "report_windows": _schema(
        pa.field("agent", pa.string()),
        pa.field("proposition", pa.string()),
        pa.field("minutes", pa.int64()),
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
        # who wrote the text: 'agent' (its own words, verbatim) or 'harness' (rendered from
        # the claim because the agent gave none)
        pa.field("text_by", pa.string()),
        # a line the scenario scripted (an event of kind tell): recorded as said, with
        # text_by 'scenario', and never counted as the speaker's own utterance by a metric
        pa.field("scripted", pa.bool_()),
        # whether the speaker could know it: exposed to the proposition before, or its origin
        # (a scripted line always). A claim from nowhere is recorded, and nobody hears it
        pa.field("grounded", pa.bool_()),
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
        # ticks one plan horizon spans (set with decision_point): exposures at least this long
        # before the action count for stale_action_rate
        pa.field("horizon", pa.int64()),
        # the player's request this action carries out, or declines (action 'decline',
        # target = the stance invoked)
        pa.field("request_id", pa.string()),
        # ok / failed (the world did not allow it) / invalid (no such action or place: the
        # harness refused it); reason: what the senses reported, or why it was refused
        pa.field("status", pa.string()),
        pa.field("reason", pa.string()),
        # set with decision_point: the target the agent's own errand named for it (null: none),
        # and the share of right targets among the others it knows for the action (what a
        # guess away from its plan would get)
        pa.field("planned", pa.string()),
        pa.field("chance", pa.float64()),
    ),
    "probes": _schema(
        pa.field("agent", pa.string()),
        pa.field("probe_id", pa.string()),
        # probe / census: the value now; probe_replaced: the value the current one replaced
        pa.field("kind", pa.string()),
        pa.field("proposition", pa.string()),
        pa.field("answer_value", pa.string()),
        pa.field("answer_modality", pa.string()),
        pa.field("answer_source", pa.string()),  # the informant named ('self': first-hand)
        pa.field("answer_origin", pa.string()),  # where the agent says it started
        pa.field("answer_replaced_by", pa.string()),  # what the agent says replaced it
    ),
}

TABLE_NAMES: tuple[str, ...] = tuple(TABLES)


def trace_names(names: Iterable[str] = ()) -> tuple[str, ...]:
    """An episode's tables in their order: the harness's, then those of `names` an agent
    declared, by name."""
    return (*TABLE_NAMES, *sorted(set(names) - set(TABLES)))


def as_written(name: str, table: pa.Table) -> pa.Table:
    """A table with the schema its file has: the harness's fixed one, or the one its agent
    declared (which the table already has)."""
    return table.cast(TABLES[name]) if name in TABLES else table


# the internal tables: what agents report of themselves (the engine's diagnostic rows), never
# evidence; every other table here the harness writes from what it saw, and no agent row may
# name one. An agent's own tables (declared.py) are internal too.
AGENT_TABLES: tuple[str, ...] = ("memory_ops", "beliefs", "trust", "state", "plans")


def agent_reported(table: str) -> bool:
    """Whether a table holds what agents say of themselves: the engine's diagnostic tables
    and every table an agent declares (any name not the harness's)."""
    return table in AGENT_TABLES or table not in TABLES


def empty_table(name: str) -> pa.Table:
    return TABLES[name].empty_table()


def to_table(name: str, rows: list[dict[str, Any]], schema: pa.Schema | None = None) -> pa.Table:
    """Build a table of the fixed schema (or of `schema`, an agent's own table's) from row
    dicts (missing nullable columns become null)."""
    schema = TABLES[name] if schema is None else schema
    columns = {f.name: [row.get(f.name) for row in rows] for f in schema}
    return pa.table(columns, schema=schema)
