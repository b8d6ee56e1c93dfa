"""Structured output: JSON schemas for `response_format`, tolerant parsing, bounded retries.

The schemas use a small subset of JSON Schema that every OpenAI-compatible server with
structured output accepts in strict mode: objects (all properties required, no others), arrays
with `maxItems` (and `minItems` where an empty list would be no answer), strings with or without
`enum`, booleans. Propositions, places, actions and
sources are enums of ids the agent offers, so whatever the model says maps onto the exact
vocabulary the scorecard counts.

Parsing forgives what models commonly do — a code fence around the JSON, prose before or after
it, an enum in other case, an extra key, a lone object where a list was asked, a list longer
than allowed — and refuses the rest. An unparsable reply gets a bounded number of corrections
(the reply and the reason go back to the model, which changes the request and so the cache
key); after the last one the call yields None and its `llm_calls` row carries the error. The
caller falls back to doing nothing: a parse failure never crashes an episode.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from .calls import ChatCall, ChatReply, Message, ReplyOutcome, canonical

Schema = dict[str, Any]

CORRECTION = (
    "Your last reply could not be used: {reason}. Reply again with only a JSON object "
    "that follows the schema."
)


# --- schema builders ------------------------------------------------------------------------------
def choice(options: Sequence[str], description: str = "") -> Schema:
    return {"type": "string", "enum": list(dict.fromkeys(options)), "description": description}


def words(description: str = "") -> Schema:
    return {"type": "string", "description": description}


def flag(description: str = "") -> Schema:
    return {"type": "boolean", "description": description}


def listing(item: Schema, max_items: int, description: str = "", min_items: int = 0) -> Schema:
    schema = {"type": "array", "items": item, "maxItems": max_items, "description": description}
    if min_items:  # an empty list is then no answer (the shortest reply a schema allows)
        schema["minItems"] = min_items
    return schema


def record(**properties: Schema) -> Schema:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def as_json(schema: Schema) -> str:
    return canonical(schema)


# --- tolerant parsing ---------------------------------------------------------------------------
class ReplyInvalid(ValueError):
    """The reply does not give what the schema asks; the message says what, for the model."""


def extract_json(content: str) -> Any:
    """The JSON value in a reply, forgiving a code fence or prose around one object."""
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    try:
        return json.loads(text)
    except ValueError:
        pass
    start = text.find("{")
    if start >= 0:
        try:
            return json.JSONDecoder().raw_decode(text[start:])[0]
        except ValueError:
            pass
    raise ReplyInvalid("it is not JSON")


def conform(value: Any, schema: Schema, where: str = "the reply") -> Any:
    """`value` brought into the schema's shape, or `ReplyInvalid` saying what is wrong."""
    kind = schema.get("type")
    if kind == "object":
        if not isinstance(value, dict):
            raise ReplyInvalid(f"{where} should be an object")
        out = {}
        for name, sub in schema["properties"].items():
            if name not in value:
                raise ReplyInvalid(f"{where} lacks '{name}'")
            out[name] = conform(value[name], sub, f"'{name}'")
        return out
    if kind == "array":
        if isinstance(value, dict):
            value = [value]
        if not isinstance(value, list):
            raise ReplyInvalid(f"{where} should be a list")
        items = []
        for i, item in enumerate(value):
            try:
                items.append(conform(item, schema["items"], f"{where}[{i}]"))
            except ReplyInvalid:
                continue  # one bad item does not spoil the others
        if value and not items:
            raise ReplyInvalid(f"no item of {where} follows the schema")
        least = int(schema.get("minItems", 0))
        if len(items) < least:
            raise ReplyInvalid(f"{where} should hold at least {least} item(s)")
        return items[: schema.get("maxItems", len(items))]
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
            return value.strip().lower() in ("true", "yes")
        raise ReplyInvalid(f"{where} should be true or false")
    if kind == "string":
        if not isinstance(value, str):
            raise ReplyInvalid(f"{where} should be a string")
        if "enum" not in schema:
            return value.strip()
        wanted = value.strip().lower()
        for option in schema["enum"]:
            if option.lower() == wanted:
                return option
        raise ReplyInvalid(f"{where} should be one of {', '.join(schema['enum'])}")
    raise ReplyInvalid(f"{where}: unsupported schema type {kind!r}")


def parse(content: str, schema: Schema) -> Any:
    return conform(extract_json(content), schema)


# --- asking ------------------------------------------------------------------------------------------
class Asks(Protocol):
    def complete(self, call: ChatCall) -> ChatReply: ...

    def note_error(self, error: str) -> None: ...

    def note_outcome(self, outcome: ReplyOutcome) -> None: ...


def ask(
    model: Asks,
    call: ChatCall,
    parse_retries: int,
    nothing: Callable[[Any], bool] | None = None,
) -> Any | None:
    """The parsed reply to a structured call, or None after `parse_retries` corrections.
    Each reply's row says what became of it (`ReplyOutcome`); `nothing(value)` is true for a
    reply that follows the schema and chooses nothing.

    Endpoint failures, cache misses and spent budgets propagate (they end the episode).
    """
    if call.schema_json is None:
        raise ValueError("ask() needs a call with a response schema")
    schema = json.loads(call.schema_json)
    for attempt in range(parse_retries + 1):
        reply = model.complete(call)
        try:
            value = parse(reply.content, schema)
        except ReplyInvalid as exc:
            model.note_error(f"unparsable reply ({attempt + 1}/{parse_retries + 1}): {exc}")
            last = attempt == parse_retries
            model.note_outcome(ReplyOutcome.FELL_BACK if last else ReplyOutcome.REJECTED)
            call = call.followed_by(
                Message("assistant", reply.content[:4000]),
                Message("user", CORRECTION.format(reason=exc)),
            )
            continue
        if nothing is not None and nothing(value):
            model.note_outcome(ReplyOutcome.CHOSE_NOTHING)
        else:
            model.note_outcome(ReplyOutcome.CORRECTED if attempt else ReplyOutcome.VALID)
        return value
    return None
