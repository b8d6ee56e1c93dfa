"""The stand-in model's rule set: what it answers to a request body, read from the prompt
(documented at the top of `experiments/standin/server.py`, the server that uses it). Standard
library only; pure functions of the request."""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

NEGATIVE = "not|closed|blocked|shut|cancelled|canceled|unsafe|gone"
_PERSON = [
    (r"\byou are\b", "I am"),
    (r"\byou were\b", "I was"),
    (r"\btold you\b", "told me"),
    (r"\bto you\b", "to me"),
    (r"\byourself\b", "myself"),
    (r"\byour\b", "my"),
    (r"\byou\b", "I"),
]


# --- the rule set ---------------------------------------------------------------------------------
def _word(option: str) -> str:
    return r"(?<![\w])" + re.escape(option) + r"(?![\w])"


def _position(option: str, focus: str) -> int | None:
    m = re.search(_word(option), focus, re.IGNORECASE)
    return None if m is None else m.start()


def ruled_out(option: str, focus: str) -> bool:
    after = _word(option) + rf"\s+(?:(?:is|are|was|were|be)\s+)?(?:{NEGATIVE})\b"
    before = r"\b(?:avoid|not|no|never|skip)\s+(?:the\s+)?" + _word(option)
    return bool(re.search(after, focus, re.IGNORECASE) or re.search(before, focus, re.IGNORECASE))


def occurring(options: list[str], focus: str, whole: str) -> list[str]:
    """Options `focus` mentions and `whole` does not rule out, by first occurrence."""
    found = [
        (pos, i, o)
        for i, o in enumerate(options)
        if (pos := _position(o, focus)) is not None and not ruled_out(o, whole)
    ]
    return [o for _, _, o in sorted(found)]


def pick(options: list[str], focus: str, whole: str) -> str:
    mentioned = occurring(options, focus, whole)
    if mentioned:
        return mentioned[0]
    allowed = [o for o in options if not ruled_out(o, whole)]
    return (allowed or options)[0]


def lines_about(option: str, focus: str) -> str:
    hits = [ln for ln in focus.splitlines() if _position(option, ln) is not None]
    return "\n".join(hits) if hits else focus


def speech(focus: str) -> str:
    line = next((ln for ln in focus.splitlines() if ln.strip()), "")
    line = re.sub(r"\[[^\]]*\]", "", line)
    line = re.sub(r"^\s*[-*•]\s*", "", line).strip()
    for pattern, repl in _PERSON:
        line = re.sub(pattern, repl, line, flags=re.IGNORECASE)
    return re.sub(r"\s+", " ", line).strip()


def _selector(properties: dict[str, Any]) -> str | None:
    return next(
        (n for n, s in properties.items() if s.get("type") == "string" and "enum" in s), None
    )


def instance(schema: dict[str, Any], focus: str, whole: str, chosen: str | None = None) -> Any:
    """A value for `schema` read from `focus` (lines of `whole`, the first user message);
    `chosen` fixes an object's selector."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if "anyOf" in schema:
        return instance(next(s for s in schema["anyOf"] if s.get("type") != "null"), focus, whole)
    if kind == "object":
        properties = schema.get("properties", {})
        selector, out, here = _selector(properties), {}, focus
        for name, sub in properties.items():
            out[name] = chosen if name == selector and chosen else instance(sub, here, whole)
            if name == selector:
                here = lines_about(out[name], focus)
        return out
    if kind == "array":
        item, cap = schema.get("items", {}), int(schema.get("maxItems", 1 << 30))
        least = int(schema.get("minItems", 0))
        if item.get("type") == "string" and "enum" in item:
            return _at_least(occurring(item["enum"], focus, whole), item["enum"], least, whole)[
                :cap
            ]
        selector = _selector(item.get("properties", {})) if item.get("type") == "object" else None
        if selector is None:
            return [instance(item, focus, whole)][:cap]
        options = item["properties"][selector]["enum"]
        picked = _at_least(occurring(options, focus, whole), options, least, whole)[:cap]
        return [instance(item, lines_about(o, focus), whole, o) for o in picked]
    if kind == "string":
        return pick(list(schema["enum"]), focus, whole) if "enum" in schema else speech(focus)
    if kind == "boolean":
        return re.search(r"\byes\b", focus, re.IGNORECASE) is not None
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    return None


def _at_least(picked: list[str], options: list[str], least: int, whole: str) -> list[str]:
    """`picked`, topped up to `least` items with the first options not ruled out."""
    for o in [o for o in options if not ruled_out(o, whole)] + list(options):
        if len(picked) >= least:
            break
        if o not in picked:
            picked = [*picked, o]
    return picked


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


SCHEMA_IN_PROMPT = re.compile(r"\n*[^\n]*follows this JSON schema:\s*", re.IGNORECASE)


def schema_of(body: dict[str, Any], focus: str) -> tuple[dict[str, Any] | None, str]:
    """The schema the request asks for, and the focus without any schema written in it."""
    fmt = body.get("response_format") or {"type": "text"}
    if fmt.get("type") == "json_schema":
        return fmt["json_schema"]["schema"], focus
    if fmt.get("type") == "json_object" and isinstance(fmt.get("schema"), dict):
        return fmt["schema"], focus
    m = SCHEMA_IN_PROMPT.search(focus)
    if m is not None:
        try:
            schema = json.JSONDecoder().raw_decode(focus[m.end() :])[0]
        except ValueError:
            schema = None
        if isinstance(schema, dict):
            return schema, focus[: m.start()]
    return None, focus


def complete(body: dict[str, Any]) -> tuple[str, int, int]:
    """The reply's content and usage for a validated request body."""
    messages = body["messages"]
    first = next((m["content"] for m in messages if m["role"] == "user"), "")
    schema, focus = schema_of(body, first)
    fmt = body.get("response_format") or {"type": "text"}
    if schema is not None:
        content = json.dumps(instance(schema, focus, focus), ensure_ascii=False)
    elif fmt.get("type") == "json_object":
        content = json.dumps({"reply": speech(focus)}, ensure_ascii=False)
    else:
        content = speech(focus)
    prompt = sum(tokens(m["content"]) + 4 for m in messages)
    return content, prompt, tokens(content)


def prompt_text(body: dict[str, Any]) -> str:
    """The prompt as a server's prefix cache sees it: the messages in order."""
    return "".join(f"<{m['role']}>{m['content']}" for m in body["messages"])


def shared_prefix(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))
