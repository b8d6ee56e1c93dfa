"""Structured output that fits the server: how a call asks for JSON, and finding out which way
an endpoint takes.

Servers differ in the `response_format` they accept. OpenAI, vLLM, Ollama and llama.cpp's C++
server take `{"type": "json_schema", "json_schema": {...}}`; llama-cpp-python's server refuses
it (HTTP 500, "Input should be 'text' or 'json_object'") and takes `{"type": "json_object",
"schema": {...}}` instead; some take `json_object` with no schema, some no `response_format`
at all. Every mode asks for the same schema and every reply is validated against it (and
corrected within the bounded retries) by `structured.ask`; the modes differ only in how the
request says it:

| mode | `response_format` | the schema in the prompt |
|---|---|---|
| `json_schema` | `{"type": "json_schema", "json_schema": {"name", "strict", "schema"}}` | no |
| `json_object_schema` | `{"type": "json_object", "schema": {...}}` | no |
| `json_object` | `{"type": "json_object"}` | yes, after the first user message |
| `prompt` | none | yes, after the first user message |

`auto` finds out once per endpoint and model with a cheap probe (a one-field schema, a few
tokens), trying the modes in the order above; a refusal that names `response_format` moves on
to the next. The answer is remembered in the response cache file, so every worker of a run, a
rerun, and a `--cache-only` replay (which cannot probe) use the same mode — and so the same
cache keys. The system message is never touched: it stays first and stable for prefix caches.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Any


class StructuredOutput(StrEnum):
    """How a call asks the server for JSON (`endpoint.structured_output`)."""

    AUTO = "auto"  # find out once per endpoint and model, and remember it
    JSON_SCHEMA = "json_schema"  # OpenAI's strict json_schema response format
    JSON_OBJECT_SCHEMA = "json_object_schema"  # json_object with a schema (llama-cpp-python)
    JSON_OBJECT = "json_object"  # JSON mode; the schema is given in the prompt
    PROMPT = "prompt"  # no response_format; the schema is given in the prompt


# the order `auto` tries them in: the most constrained first
PROBE_ORDER = (
    StructuredOutput.JSON_SCHEMA,
    StructuredOutput.JSON_OBJECT_SCHEMA,
    StructuredOutput.JSON_OBJECT,
    StructuredOutput.PROMPT,
)
IN_PROMPT = (StructuredOutput.JSON_OBJECT, StructuredOutput.PROMPT)

SCHEMA_INSTRUCTION = "Reply with only a JSON object that follows this JSON schema:\n{schema}"

# a refusal of the request's response format, as servers word it
_REFUSAL = re.compile(r"response_format|json_schema|json_object", re.IGNORECASE)


def response_format(
    mode: StructuredOutput, name: str, schema: dict[str, Any]
) -> dict[str, Any] | None:
    """The request's `response_format` field in this mode (None: leave it out)."""
    if mode == StructuredOutput.JSON_SCHEMA:
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "strict": True, "schema": schema},
        }
    if mode == StructuredOutput.JSON_OBJECT_SCHEMA:
        return {"type": "json_object", "schema": schema}
    if mode == StructuredOutput.JSON_OBJECT:
        return {"type": "json_object"}
    if mode == StructuredOutput.PROMPT:
        return None
    raise ValueError(f"structured output {mode!s} must be resolved before a call is made")


def instruction(schema_json: str) -> str:
    """What the prompt says in the modes whose server is not given the schema."""
    return SCHEMA_INSTRUCTION.format(schema=schema_json)


def with_schema_in_prompt(
    messages: list[dict[str, str]], mode: StructuredOutput, schema_json: str
) -> list[dict[str, str]]:
    """The messages, with the schema after the first user message in the modes that need it
    (the system message, first and stable, is left as it is)."""
    if mode not in IN_PROMPT:
        return messages
    out = [dict(m) for m in messages]
    for m in out:
        if m["role"] == "user":
            m["content"] = f"{m['content']}\n\n{instruction(schema_json)}"
            break
    return out


def is_refusal(status: int, message: str) -> bool:
    """An error reply that refuses the request's response format (not a server in trouble)."""
    return status in (400, 415, 422, 500, 501) and bool(_REFUSAL.search(message))


PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean", "description": "true"}},
    "required": ["ok"],
    "additionalProperties": False,
}


def probe_body(model: str, mode: StructuredOutput) -> dict[str, Any]:
    """A cheap request that shows whether the server takes this mode (a few tokens)."""
    schema_json = json.dumps(PROBE_SCHEMA, sort_keys=True, separators=(",", ":"))
    messages = with_schema_in_prompt(
        [
            {"role": "system", "content": "Reply with JSON only."},
            {"role": "user", "content": 'Say {"ok": true}.'},
        ],
        mode,
        schema_json,
    )
    body: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "temperature": 0.0,
        "max_tokens": 16,
        "seed": 0,
    }
    fmt = response_format(mode, "probe", PROBE_SCHEMA)
    if fmt is not None:
        body["response_format"] = fmt
    return body
