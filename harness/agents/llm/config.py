"""The LLM config file (YAML): which endpoint and model, how to call it, cache, budgets, prices.

Validated with pydantic into a frozen value; a bad file raises `InputError` naming the file,
the line, the place in the document and what was expected (the CLI exits 2 on it). The API key
is never in the file: `endpoint.api_key_env` names the environment variable that holds it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from villagelab.yamlsource import InputError, YamlSource, format_location, listing, shown

from .formats import StructuredOutput

_STRICT = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class EndpointConfig(BaseModel):
    model_config = _STRICT

    base_url: str = Field(
        description="the OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1"
    )
    model: str = Field(min_length=1, description="the model id the endpoint serves")
    api_key_env: str | None = Field(
        None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="name of the environment variable holding the API key (never the key)",
    )
    timeout_s: float = Field(60.0, gt=0, le=3600, description="a whole call, end to end")
    connect_timeout_s: float = Field(5.0, gt=0, le=600)
    max_retries: int = Field(3, ge=0, le=20, description="retries after the first attempt")
    backoff_s: float = Field(0.5, ge=0, le=60, description="first wait; doubles per retry")
    backoff_max_s: float = Field(8.0, ge=0, le=600)
    max_concurrent: int = Field(
        4, ge=1, le=1024, description="calls in flight to this endpoint from one machine"
    )
    slot_wait_s: float = Field(
        600.0, gt=0, le=86400, description="longest wait for a free call slot before failing"
    )
    structured_output: StructuredOutput = Field(
        StructuredOutput.AUTO,
        description="how calls ask for JSON: auto finds out once per endpoint and model",
    )

    @field_validator("structured_output", mode="before")
    @classmethod
    def _mode(cls, value: Any) -> StructuredOutput:
        """The file spells the mode as text (strict validation takes no text for an enum)."""
        try:
            return StructuredOutput(value)
        except ValueError:
            raise ValueError(
                "expected one of " + ", ".join(m.value for m in StructuredOutput)
            ) from None

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("expected an http:// or https:// URL with a host")
        return value.rstrip("/")


class CallConfig(BaseModel):
    model_config = _STRICT

    max_tokens: int = Field(256, ge=1, le=32768, description="longest reply of one call")
    parse_retries: int = Field(
        2, ge=0, le=5, description="corrections asked for after an unparsable reply"
    )


class CacheConfig(BaseModel):
    model_config = _STRICT

    path: str | None = Field(None, description="SQLite file; default <runs>/llm/cache.sqlite")
    cache_only: bool = Field(False, description="a miss ends the episode as cache_miss")


class BudgetConfig(BaseModel):
    model_config = _STRICT

    episode_tokens: int | None = Field(None, ge=1, description="tokens one episode may use")
    trial_tokens: int | None = Field(None, ge=1, description="tokens one trial may pay for")


class Price(BaseModel):
    model_config = _STRICT

    input: float = Field(ge=0, description="USD per million prompt tokens")
    output: float = Field(ge=0, description="USD per million completion tokens")


class LLMConfig(BaseModel):
    model_config = _STRICT

    endpoint: EndpointConfig
    calls: CallConfig = CallConfig()
    cache: CacheConfig = CacheConfig()
    budgets: BudgetConfig = BudgetConfig()
    prices: dict[str, Price] = Field(
        default_factory=dict, description="per model id; absent → cost unknown"
    )

    def api_key(self) -> str | None:
        """The key from the named environment variable, read when a client is built."""
        name = self.endpoint.api_key_env
        return os.environ.get(name) if name else None

    def cache_path(self, runs_dir: str | Path) -> Path:
        return Path(self.cache.path) if self.cache.path else Path(runs_dir) / "llm" / "cache.sqlite"

    def price(self) -> Price | None:
        return self.prices.get(self.endpoint.model)

    def with_structured_output(self, mode: StructuredOutput) -> LLMConfig:
        return self.model_copy(
            update={"endpoint": self.endpoint.model_copy(update={"structured_output": mode})}
        )

    def with_cache_only(self, cache_only: bool) -> LLMConfig:
        return self.model_copy(
            update={"cache": self.cache.model_copy(update={"cache_only": cache_only})}
        )


def load_llm_config(path: str | Path, *, need_key: bool = True) -> LLMConfig:
    """Read and validate an LLM config; `need_key`: the named key variable must be set."""
    source = YamlSource.load(path)
    if not isinstance(source.data, dict):
        raise source.error(
            (),
            "expected a mapping with endpoint:, and optionally calls:, cache:, budgets:, prices:",
        )
    try:
        config = LLMConfig.model_validate(source.data, strict=True)  # no coercion: "60" is text
    except ValidationError as exc:
        raise InputError(listing([_located(source, err) for err in exc.errors()])) from None
    name = config.endpoint.api_key_env
    if need_key and name and not os.environ.get(name) and not config.cache.cache_only:
        line = source.line_of(("endpoint", "api_key_env"))
        raise InputError(
            f"{source.path}:{line}: endpoint.api_key_env: the environment "
            f"variable {name} is not set; expected it to hold the API key"
        )
    return config


def _located(source: YamlSource, err: Any) -> str:
    where = tuple(err["loc"])
    head = f"{source.path}:{source.line_of(where)}: {format_location(where)}"
    if err["type"] == "extra_forbidden":
        return f"{head}: unknown key; expected one of the documented keys (docs/llm.md)"
    if err["type"] == "missing":
        return f"{head}: missing; expected a value here"
    got = err.get("input")
    # a URL may hold a password
    seen = "<hidden>" if where and where[-1] == "base_url" else shown(got)
    msg = err["msg"].removeprefix("Value error, ").removeprefix("expected ")
    return f"{head}: got {seen}; expected {msg[0].lower()}{msg[1:]}"
