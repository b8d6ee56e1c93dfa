"""One episode's model: the endpoint, wrapped in retries, the response cache and accounting.

    Accounted(budgets, rows) → Cached(response cache, cache-only) → Retrying → HttpModel

Built inside the process that runs the episode (a Ray worker reads the API key from its own
environment; nothing holding a key or a connection is ever pickled).
"""

from __future__ import annotations

from pathlib import Path

from .accounting import Accounted, Budgets
from .cache import ResponseCache
from .client import connect
from .config import LLMConfig


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
