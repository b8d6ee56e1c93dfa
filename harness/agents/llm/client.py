"""The chat-completions client: one HTTP call (`HttpModel`) and retries around it (`Retrying`).

Why httpx and not the official `openai` package: the protocol we need is one POST and one JSON
reply, and everything around it must be ours to record — each attempt, its backoff, its typed
failure, the call slot it held, the latency the adapter itself adds. The `openai` client retries
inside itself (invisibly to our accounting), insists on an API key even for a local server, and
pulls a larger dependency tree; it is itself built on httpx, so the wire behaviour is the same.

Failures: a timeout, a lost connection (the server died mid-call), HTTP 408/409/429/5xx are
retried with capped exponential backoff (deterministic jitter, `Retry-After` honoured) and then
raised as `EndpointFailure`; HTTP 400/401/403/404/422 are raised at once, since retrying cannot
fix them, and so is a refusal of the request's `response_format` (`FormatRefused`: another
`endpoint.structured_output` fixes it; `probe_format` finds which). Every wait is bounded: a
call never hangs.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

from .calls import ChatCall, ChatReply, EndpointFailure, FormatRefused
from .config import EndpointConfig
from .endpoint import CallSlots, public_endpoint
from .formats import PROBE_ORDER, StructuredOutput, is_refusal, probe_body

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class _Transient(Exception):
    """An attempt failed in a way another attempt may not (internal to this module)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.retry_after = reason, retry_after


class _Redact(logging.Filter):
    """httpx and httpcore log requests (URL, at INFO/DEBUG): blank out every secret we hold."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if any(secret in text for secret in self.secrets):
            for secret in self.secrets:
                text = text.replace(secret, "***")
            record.msg, record.args = text, ()
        return True


_REDACT = _Redact()
_HTTP_LOGGERS = (
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
)


def _guard_logs(*secrets: str | None) -> None:
    _REDACT.secrets.update(s for s in secrets if s and len(s) >= 3)
    for name in _HTTP_LOGGERS:
        logger = logging.getLogger(name)
        if _REDACT not in logger.filters:
            logger.addFilter(_REDACT)


class HttpModel:
    """One attempt at one call against an OpenAI-compatible endpoint."""

    def __init__(self, endpoint: EndpointConfig, api_key: str | None, slots_dir: Path) -> None:
        self.model_id = endpoint.model
        self.endpoint = public_endpoint(endpoint.base_url)
        self._config = endpoint
        self._api_key = api_key
        self._slots = CallSlots(
            slots_dir, endpoint.base_url, endpoint.max_concurrent, endpoint.slot_wait_s
        )
        self._client: httpx.Client | None = None

    def __repr__(self) -> str:  # never the key, never the credentials in the URL
        return f"HttpModel({self.model_id!r} at {self.endpoint})"

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError(
            "an HttpModel is built where it is used (it holds a connection and a "
            "key); pass the LLMConfig instead"
        )

    def _http(self) -> httpx.Client:
        if self._client is None:
            parts = urlsplit(self._config.base_url)
            headers = {"Content-Type": "application/json"}
            auth = None
            if self._api_key:
                headers["Authorization"] = f"Bearer {self._api_key}"
            elif parts.username:
                auth = httpx.BasicAuth(parts.username, parts.password or "")
            c = self._config
            self._client = httpx.Client(
                base_url=public_endpoint(c.base_url),
                params=dict(parse_qsl(parts.query)),
                headers=headers,
                auth=auth,
                follow_redirects=False,
                timeout=httpx.Timeout(c.timeout_s, connect=c.connect_timeout_s),
                limits=httpx.Limits(
                    max_connections=c.max_concurrent, max_keepalive_connections=c.max_concurrent
                ),
            )
            query = parse_qsl(parts.query)
            _guard_logs(self._api_key, parts.password, *(v for _, v in query))
        return self._client

    def _hide(self, text: str) -> str:
        """A server's error message may echo the key it refused: never pass that on."""
        return text.replace(self._api_key, "***") if self._api_key else text

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def complete(self, call: ChatCall) -> ChatReply:
        """One attempt; raises `_Transient` for what a retry may fix, `EndpointFailure` else."""
        return self.send(call.body(self.model_id), call.structured_output)

    def send(self, request: dict[str, Any], mode: StructuredOutput) -> ChatReply:
        """One attempt at a request body asking for structured output in `mode`."""
        body = json.dumps(request).encode()
        with self._slots.hold():
            started = time.perf_counter()
            deadline = time.monotonic() + self._config.timeout_s
            try:
                with self._http().stream("POST", "/chat/completions", content=body) as resp:
                    chunks = []
                    for chunk in resp.iter_bytes():
                        chunks.append(chunk)
                        if time.monotonic() > deadline:  # a server that trickles bytes
                            raise _Transient(
                                f"no complete reply within {self._config.timeout_s:g} s"
                            )
                    payload = b"".join(chunks)
            except httpx.TimeoutException as exc:
                raise _Transient(f"timed out ({type(exc).__name__})") from None
            except httpx.TransportError as exc:  # refused, reset, closed mid-reply
                raise _Transient(f"connection failed ({type(exc).__name__})") from None
            latency_ms = (time.perf_counter() - started) * 1000.0
        if resp.status_code != 200:
            message = _error_message(payload)
            reason = self._hide(f"HTTP {resp.status_code}{message}")
            if "response_format" in request and is_refusal(resp.status_code, message):
                raise FormatRefused(
                    f"{self.endpoint}: {reason} — the server refuses structured output as "
                    f"{mode}; set endpoint.structured_output to auto, or to the mode it takes "
                    "(docs/llm.md)"
                )
            if resp.status_code in RETRYABLE_STATUS:
                raise _Transient(reason, _retry_after(resp.headers.get("retry-after")))
            raise EndpointFailure(f"{self.endpoint}: {reason}")
        return _reply(payload, latency_ms, self.endpoint)


def _error_message(payload: bytes) -> str:
    try:
        message = json.loads(payload)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return ""
    return f": {str(message)[:200]}"


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _reply(payload: bytes, latency_ms: float, endpoint: str) -> ChatReply:
    try:
        data = json.loads(payload)
        message = data["choices"][0]["message"]
        content = message.get("content") or ""
    except (ValueError, KeyError, IndexError, TypeError):
        raise _Transient("the reply is not a chat completion") from None
    usage = data.get("usage") or {}
    return ChatReply(
        content=content,
        tokens_in=int(usage.get("prompt_tokens") or 0),
        tokens_out=int(usage.get("completion_tokens") or 0),
        latency_ms=round(latency_ms, 3),
        tokens_reused=_reused(usage),
    )


def _reused(usage: dict[str, Any]) -> int | None:
    """The prompt tokens a server's prefix cache served, where it says: OpenAI and vLLM as
    `prompt_tokens_details.cached_tokens`; None when the reply does not say."""
    details = usage.get("prompt_tokens_details")
    if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
        return int(details["cached_tokens"])
    return None


class Retrying:
    """Retries a model's transient failures with capped exponential backoff, then gives up with
    `EndpointFailure`. The jitter is a digest of the call and the attempt: no global RNG."""

    def __init__(
        self, inner: HttpModel, max_retries: int, backoff_s: float, backoff_max_s: float
    ) -> None:
        self.inner, self.model_id = inner, inner.model_id
        self.max_retries, self.backoff_s, self.backoff_max_s = (
            max_retries,
            backoff_s,
            backoff_max_s,
        )

    def wait_before(self, attempt: int, key: str, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.backoff_max_s)
        digest = hashlib.blake2b(f"{key}/{attempt}".encode(), digest_size=4).digest()
        jitter = 0.5 + 0.5 * int.from_bytes(digest, "big") / 2**32
        return min(self.backoff_s * 2.0 ** (attempt - 1), self.backoff_max_s) * jitter

    def complete(self, call: ChatCall) -> ChatReply:
        return self.send(call.body(self.model_id), call.structured_output, call.key(self.model_id))

    def send(self, request: dict[str, Any], mode: StructuredOutput, key: str) -> ChatReply:
        for attempt in range(1, self.max_retries + 2):
            try:
                return replace(self.inner.send(request, mode), attempts=attempt)
            except _Transient as exc:
                if attempt > self.max_retries:
                    raise EndpointFailure(
                        f"{self.inner.endpoint}: {exc.reason} (gave up after {attempt} attempts)"
                    ) from None
                time.sleep(self.wait_before(attempt, key, exc.retry_after))
        raise AssertionError("unreachable")


def connect(endpoint: EndpointConfig, api_key: str | None, slots_dir: Path) -> Retrying:
    """The endpoint with its retry policy: what the cache wraps."""
    return Retrying(
        HttpModel(endpoint, api_key, slots_dir),
        endpoint.max_retries,
        endpoint.backoff_s,
        endpoint.backoff_max_s,
    )


def probe_format(
    endpoint: EndpointConfig, api_key: str | None, slots_dir: Path
) -> StructuredOutput:
    """The first structured-output mode the endpoint takes (PROBE_ORDER), found with a few
    tokens per mode tried: a refusal naming the response format moves on to the next.
    An endpoint that does not answer raises `EndpointFailure`."""
    model = connect(endpoint, api_key, slots_dir)
    try:
        for mode in PROBE_ORDER[:-1]:
            try:
                model.send(probe_body(endpoint.model, mode), mode, f"probe/{mode}")
            except FormatRefused:
                continue
            return mode
        return PROBE_ORDER[-1]
    finally:
        model.inner.close()
