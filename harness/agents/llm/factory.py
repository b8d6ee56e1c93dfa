"""Building LLM agents for an episode: one model (cache, accounting, budgets) per episode."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .agent import LLMAgent
from .cache import ResponseCache
from .config import LLMConfig
from .model import open_model


def known_places(spec: Any) -> tuple[str, ...]:
    """The places an agent knows from its own life: home, routine and errands."""
    places = {spec.home, *(p for slot in spec.routine for p in slot.go)}
    for errand in spec.errands:
        places.update((errand.target, *errand.via))
    return tuple(sorted(places))


def llm_agents(
    config: LLMConfig, runs_dir: str | Path, trial_scope: str | None = None
) -> Callable[..., LLMAgent]:
    """A factory with the positional agent signature; agents of one episode (the same draws)
    share one model, so the episode's token budget and rows are the episode's."""
    cache = ResponseCache(config.cache_path(runs_dir))
    current: dict[str, Any] = {"draws": None, "model": None}

    def make(
        spec: Any, policy: Any, draws: Any, start: int, end: int, tick_minutes: int
    ) -> LLMAgent:
        if current["draws"] is not draws:
            current.update(
                draws=draws,
                model=open_model(config, runs_dir, trial_scope=trial_scope, cache=cache),
            )
        return LLMAgent(
            spec,
            policy,
            draws,
            start,
            end,
            tick_minutes,
            model=current["model"],
            places=known_places(spec),
            max_tokens=config.calls.max_tokens,
            parse_retries=config.calls.parse_retries,
        )

    return make
