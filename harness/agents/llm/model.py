"""One episode's model: the endpoint, wrapped in retries, the response cache and accounting.

    Accounted(budgets, rows) → Cached(response cache, cache-only) → Retrying → HttpModel

Built inside the process that runs the episode (a Ray worker reads the API key from its own
environment; nothing holding a key or a connection is ever pickled).
"""

from __future__ import annotations

from pathlib import Path

from .accounting import Accounted, Budgets
from .cache import ResponseCache
from .calls import CacheMiss
from .client import connect, probe_format
from .config import LLMConfig
from .endpoint import public_endpoint
from .formats import StructuredOutput


def open_model(
    config: LLMConfig,
    runs_dir: str | Path,
    *,
    trial_scope: str | None = None,
    cache: ResponseCache | None = None,
) -> Accounted:
    """The model an episode talks to; `trial_scope` names the trial in the shared ledger."""
    cache_path = config.cache_path(runs_dir)
    cache = cache or ResponseCache(cache_path)
    inner = (
        None
        if config.cache.cache_only
        else connect(config.endpoint, config.api_key(), cache_path.parent / "slots")
    )
    budgets = Budgets(config.budgets.episode_tokens, config.budgets.trial_tokens, trial_scope)
    return Accounted(cache, inner, config.endpoint.model, budgets, config.cache.cache_only)


def resolve_format(
    config: LLMConfig, runs_dir: str | Path, cache: ResponseCache | None = None
) -> LLMConfig:
    """The config with `structured_output: auto` replaced by the mode the endpoint takes: the
    one remembered in the response cache for this endpoint and model, else found by a probe
    (and remembered). Under cache-only, a mode never found raises `CacheMiss`; an endpoint that
    does not answer the probe raises `EndpointFailure`."""
    endpoint = config.endpoint
    if endpoint.structured_output != StructuredOutput.AUTO:
        return config
    cache_path = config.cache_path(runs_dir)
    cache = cache or ResponseCache(cache_path)
    where = public_endpoint(endpoint.base_url)
    known = cache.remembered_format(where, endpoint.model)
    if known is None:
        if config.cache.cache_only:
            raise CacheMiss(
                f"structured_output auto: the mode {endpoint.model} at {where} takes is not "
                f"in the response cache ({cache_path.name}), and cache-only makes no probe; "
                "set endpoint.structured_output"
            )
        found = probe_format(endpoint, config.api_key(), cache_path.parent / "slots")
        known = cache.remember_format(where, endpoint.model, str(found))
    return config.with_structured_output(StructuredOutput(known))
