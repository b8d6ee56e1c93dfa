"""One model call as data: the request record, the reply record, and the typed failures.

A `ChatCall` is frozen and carries everything that decides the model's answer (messages,
sampling parameters, response schema, the call's keyed seed); its `key` is the content address
the response cache uses. Who asked and when (agent, minute) travel with it for accounting but
are not part of the key: the same request from the same seed is the same answer.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Protocol

from harness.engine.contract import EpisodeStatus, EpisodeStop

from .formats import StructuredOutput, response_format, with_schema_in_prompt


class Purpose(StrEnum):
    """Why the agent asks the model; one prompt family each, one column value in `llm_calls`."""

    IMPORTANCE = "importance"  # how much a new experience matters
    TRUST = "trust"  # whether trust in an informant moves after an observed outcome
    SHARE = "share"  # what to tell a partner in a chat, and in which words
    ACT = "act"  # what to do next among the actions and places the world offers
    ANSWER = "answer"  # a probe or census answer
    REPLY = "reply"  # a character's answer to a line said to it (a scenario's dialogue)
    REMIND = "remind"  # a character's reminder at a moment it promised (the reply family)
    PROPOSE = "propose"  # a search's model proposer: one policy change (`--proposer llm`)


class ReplyOutcome(StrEnum):
    """What became of one call's reply (`llm_calls.outcome`): why a decision was what it was."""

    VALID = "valid"  # it followed the schema the first time
    CORRECTED = "corrected"  # it followed the schema after a correction
    REJECTED = "rejected"  # it could not be used; a correction was asked for
    FELL_BACK = "fell_back"  # it could not be used and no correction was left: the agent falls back
    CHOSE_NOTHING = (
        "chose_nothing"  # it followed the schema and chose nothing (silence, none, stay)
    )
    FAILED = "failed"  # no reply: the endpoint failed, the cache missed, the budget was spent


@dataclass(frozen=True)
class Message:
    role: str  # system / user / assistant
    content: str

    def as_json(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


def canonical(payload: Any) -> str:
    """The one JSON spelling of a payload (sorted keys, no spaces): what gets hashed."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class ChatCall:
    """A chat-completions request, minus the endpoint and its credentials."""

    purpose: Purpose
    messages: tuple[Message, ...]
    temperature: float
    max_tokens: int
    seed: int  # keyed by (scenario, seed, agent, purpose, minute, n): never by trial or worker
    schema_name: str | None = None
    schema_json: str | None = None  # canonical JSON of the response schema, if structured
    structured_output: StructuredOutput = StructuredOutput.JSON_SCHEMA  # how the schema is asked
    # accounting only — not part of the request, so not part of the key
    agent: str = field(default="", compare=False)
    minute: int = field(default=0, compare=False)
    event_id: int = field(default=0, compare=False)

    def body(self, model: str) -> dict[str, Any]:
        """The request body of the OpenAI chat-completions protocol."""
        messages = [m.as_json() for m in self.messages]
        if self.schema_json is not None:
            messages = with_schema_in_prompt(messages, self.structured_output, self.schema_json)
        body: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
        }
        if self.schema_json is not None:
            fmt = response_format(
                self.structured_output, self.schema_name or "reply", json.loads(self.schema_json)
            )
            if fmt is not None:
                body["response_format"] = fmt
        return body

    def key(self, model: str) -> str:
        """Content address: model id, full messages, sampling parameters, the keyed seed and
        the response schema — the canonical request body, which never holds a credential."""
        return hashlib.blake2b(canonical(self.body(model)).encode(), digest_size=20).hexdigest()

    def followed_by(self, *messages: Message) -> ChatCall:
        """The same call with more messages (a correction after an unparsable reply)."""
        return ChatCall(
            self.purpose,
            (*self.messages, *messages),
            self.temperature,
            self.max_tokens,
            self.seed,
            self.schema_name,
            self.schema_json,
            self.structured_output,
            self.agent,
            self.minute,
            self.event_id,
        )


@dataclass(frozen=True)
class ChatReply:
    """What came back: the content and its usage; `latency_ms` is the original call's."""

    content: str
    tokens_in: int
    tokens_out: int
    latency_ms: float
    cache_hit: bool = False
    attempts: int = 1  # HTTP attempts this call made (0 for a cache hit)
    tokens_reused: int | None = None  # prompt tokens the server's prefix cache served, if told


class ChatModel(Protocol):
    """Anything that answers a call: the HTTP endpoint, or a wrapper around another model
    (retries, cache, accounting are added by wrapping, not by flags)."""

    model_id: str

    def complete(self, call: ChatCall) -> ChatReply: ...


# --- failures: each ends the episode with its own status ----------------------------------------
class LLMFailure(EpisodeStop):
    """A model call that cannot go on; the episode ends with `status` and this message.

    Messages name the endpoint without credentials and never quote a key or a header.
    """

    status: ClassVar[EpisodeStatus] = EpisodeStatus.FAILED


class EndpointFailure(LLMFailure):
    """The endpoint did not answer usefully: timeouts, lost connections and retryable HTTP
    errors after the last retry, or an error that retrying cannot fix (400, 401, 404...)."""

    status = EpisodeStatus.FAILED


class FormatRefused(EndpointFailure):
    """The endpoint refused the request's `response_format`: retrying cannot fix it, another
    `endpoint.structured_output` can."""


class CacheMiss(LLMFailure):
    """`--cache-only`: the call is not in the response cache, so it is not made."""

    status = EpisodeStatus.CACHE_MISS


class BudgetExhausted(LLMFailure):
    """The episode's or the trial's token budget is spent."""

    status = EpisodeStatus.BUDGET_EXHAUSTED
