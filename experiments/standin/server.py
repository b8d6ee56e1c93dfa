"""A stand-in language model: an OpenAI-compatible chat-completions server on 127.0.0.1.

    python -m experiments.standin --port 8765          # then base_url http://127.0.0.1:8765/v1

It is a model, not a mock of villagelab: it knows nothing of agents, memories or scenarios,
only the chat-completions protocol (`POST /v1/chat/completions`, `GET /v1/models`,
`response_format` of type `json_schema`, `json_object` or text) and a small, deterministic,
extractive rule set that reads the prompt. It lives here, with the tools a person runs beside
an experiment, rather than in `harness/agents/llm/`, because it plays the part of the model:
its identity reaches a run as the model id (`standin-1`, part of every cache key), not as agent
code. It uses the standard library only.

The rule set (greedy: temperature and seed change nothing). The *focus* is the first user
message: later turns (a reply and a request to correct it) ask the same question again.
1. Structured reply: an instance of the schema, built property by property. The schema comes
   from `response_format` (`json_schema`, or `json_object` with a `schema` as llama-cpp-python
   takes it), or else from the first user message, where it follows the words "follows this
   JSON schema:" (that part is then not read by the rules below).
2. A string with `enum`: the option that occurs earliest in the focus (whole word, any case),
   skipping options ruled out; when none occurs, the first option not ruled out. An option
   is *ruled out* where the first user message (all of it) says "<option> [is|are|was|were|be] <negative>"
   or "<avoid|not|no|never|skip> [the] <option>", negative being not, closed, blocked, shut,
   cancelled, canceled, unsafe or gone.
3. In an object, the first enum property *selects*: the properties after it read only the
   lines of the focus that mention the selected option (when any do).
4. An array of objects: one item per option of the item's first enum property that occurs in
   the focus (not ruled out), in order of first occurrence, up to `maxItems`; each item reads
   the lines that mention its option. An array of enum strings: those options, in that order.
   Fewer than `minItems`: the first options not ruled out are added.
5. A free string: the first line of the focus with any `[label]` and list marker removed and
   second person turned into first ("you are" → "I am", "told you" → "told me", ...).
6. A boolean: true when the focus contains the word "yes". A number: its minimum, else 0.
7. Without a schema: `json_object` gives {"reply": <rule 5>}; text gives rule 5's words.
Usage: about four characters a token (prompt: every message plus 4 per message). A prefix cache
like a real server's: `usage.prompt_tokens_details.cached_tokens` is the part of this prompt
that the previous prompt it served began with (in the same tokens).

`GET /stats` reports completions served and the most in flight at once. For failure tests: `--delay S` waits before each answer, `--fail-first N` answers
HTTP 503 to the first N completions, `--garble-first N` answers non-JSON to the first N
structured completions, `--api-key-env NAME` requires `Authorization: Bearer <$NAME>`,
`--refuse json_schema` refuses that `response_format` type the way llama-cpp-python's server
does (HTTP 500, "Input should be 'text' or 'json_object'"; `--refuse json_object` too: a
server that takes no response format).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from experiments.standin.rules import (
    complete,
    prompt_text,
    schema_of,
    shared_prefix,
)

MODEL_ID = "standin-1"
FORMATS = ("text", "json_object", "json_schema")


def refusal(kind: str, refused: list[str]) -> str:
    """What llama-cpp-python 0.3's server says (HTTP 500) to a response format it refuses:
    with `--refuse json_schema`, word for word."""
    taken = " or ".join(f"'{k}'" for k in FORMATS if k not in refused)
    return (
        "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
        f"'type'), 'msg': \"Input should be {taken}\", 'input': '{kind}', "
        f"'ctx': {{'expected': \"{taken}\"}}}}\n\n    POST /v1/chat/completions"
    )


# --- the server ------------------------------------------------------------------------------------
def _problem(body: Any) -> str | None:
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    if not isinstance(body.get("model"), str):
        return "'model' must be a string"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty list"
    for m in messages:
        if not (
            isinstance(m, dict)
            and m.get("role") in ("system", "user", "assistant")
            and isinstance(m.get("content"), str)
        ):
            return "each message needs a role (system, user, assistant) and string content"
    fmt = body.get("response_format")
    if fmt is not None and (
        not isinstance(fmt, dict) or fmt.get("type") not in ("text", "json_object", "json_schema")
    ):
        return "'response_format.type' must be text, json_object or json_schema"
    if (
        fmt
        and fmt.get("type") == "json_schema"
        and not isinstance((fmt.get("json_schema") or {}).get("schema"), dict)
    ):
        return "'response_format.json_schema.schema' must be an object"
    return None


class Counters:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.completions = 0
        self.structured = 0
        self.in_flight = 0
        self.max_in_flight = 0


class StandinServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], options: argparse.Namespace) -> None:
        super().__init__(address, Handler)
        self.options, self.counters = options, Counters()
        self.last_prompt = ""
        self.api_key = os.environ.get(options.api_key_env) if options.api_key_env else None


class Handler(BaseHTTPRequestHandler):
    server: StandinServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # answer in one segment: without this, Nagle + delayed ACK add ~40 ms to every reply
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.options.verbose:
            sys.stderr.write(f"standin: {format % args}\n")

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        self._send(status, {"error": {"message": message, "type": kind}})

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self._send(
                200,
                {
                    "object": "list",
                    "data": [
                        {"id": self.server.options.model, "object": "model", "owned_by": "standin"}
                    ],
                },
            )
        elif self.path.rstrip("/") == "/health":
            self._send(200, {"status": "ok"})
        elif self.path.rstrip("/") == "/stats":  # what a test needs to see from outside
            c = self.server.counters
            with c.lock:
                self._send(
                    200,
                    {
                        "completions": c.completions,
                        "structured": c.structured,
                        "in_flight": c.in_flight,
                        "max_in_flight": c.max_in_flight,
                    },
                )
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path.split("?")[0].rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._error(404, f"no route {self.path}")
            return
        key = self.server.api_key
        if key is not None and self.headers.get("Authorization") != f"Bearer {key}":
            given = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
            # as some hosted APIs do, the refusal quotes the key it got: clients must not echo it
            self._error(401, f"incorrect API key provided: {given}", "authentication_error")
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._error(400, "the body is not JSON")
            return
        problem = _problem(body)
        if problem:
            self._error(400, problem)
            return
        if body["model"] != self.server.options.model:
            self._error(404, f"model {body['model']!r} not found", "not_found_error")
            return
        fmt_type = (body.get("response_format") or {}).get("type")
        if fmt_type in self.server.options.refuse:
            self._error(
                500, refusal(str(fmt_type), self.server.options.refuse), "internal_server_error"
            )
            return
        counters = self.server.counters
        first = next((m["content"] for m in body["messages"] if m["role"] == "user"), "")
        structured = schema_of(body, first)[0] is not None
        with counters.lock:
            counters.completions += 1
            counters.structured += structured
            n, s = counters.completions, counters.structured
            counters.in_flight += 1
            counters.max_in_flight = max(counters.max_in_flight, counters.in_flight)
        try:
            self._answer(body, n, s, structured)
        finally:
            with counters.lock:
                counters.in_flight -= 1

    def _answer(self, body: dict[str, Any], n: int, s: int, structured: bool) -> None:
        options = self.server.options
        if options.delay:
            time.sleep(options.delay)
        if n <= options.fail_first:
            self._error(503, "overloaded, try again", "server_error")
            return
        content, prompt_tokens, completion_tokens = complete(body)
        if structured and s <= options.garble_first:
            content = "Sure! Here is what I think: " + content[: len(content) // 2]
        text = prompt_text(body)
        with self.server.counters.lock:  # one slot, as llama.cpp's: the last prompt is cached
            previous, self.server.last_prompt = self.server.last_prompt, text
        reused = min(prompt_tokens, shared_prefix(previous, text) // 4)
        self._send(
            200,
            {
                "id": f"chatcmpl-standin-{n}",
                "object": "chat.completion",
                "created": 0,
                "model": options.model,
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                    "prompt_tokens_details": {"cached_tokens": reused},
                },
            },
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.standin", description="A deterministic stand-in chat model."
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--port-file", type=Path, help="write the port here once listening")
    parser.add_argument("--model", default=MODEL_ID)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--fail-first", type=int, default=0)
    parser.add_argument("--garble-first", type=int, default=0)
    parser.add_argument("--api-key-env")
    parser.add_argument(
        "--refuse",
        action="append",
        default=[],
        choices=("json_schema", "json_object"),
        help="refuse this response_format type as llama-cpp-python's server refuses json_schema",
    )
    parser.add_argument("--verbose", action="store_true")
    options = parser.parse_args(argv)
    if options.host not in ("127.0.0.1", "localhost", "::1"):
        parser.error("the stand-in listens on loopback only")
    server = StandinServer((options.host, options.port), options)
    port = server.server_address[1]
    if options.port_file:
        tmp = options.port_file.with_name(f".{options.port_file.name}.tmp")
        tmp.write_text(str(port))
        os.replace(tmp, options.port_file)
    print(f"standin: model {options.model} at http://{options.host}:{port}/v1", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
