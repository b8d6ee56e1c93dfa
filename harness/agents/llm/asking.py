"""How the LLM agent asks its model: a frozen template, words filled in, a schema, a keyed seed.

The seed of a call is drawn from (scenario, seed, agent, purpose, minute, what is asked about)
— never from a counter, the trial or the worker — so the same question at the same moment of
the same episode is the same request, and the response cache answers it on a rerun.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import prompts, words
from .accounting import Accounted
from .calls import ChatCall, Purpose
from .formats import StructuredOutput
from .structured import Schema, as_json, ask

# purposes asked through another family's template, and the section of their user message
SECTIONS = {Purpose.REMIND: ("reply", "remind")}


@dataclass(frozen=True)
class CallSettings:
    max_tokens: int = 256
    parse_retries: int = 2
    structured_output: StructuredOutput = StructuredOutput.JSON_SCHEMA  # resolved, never auto


class Asking:
    def __init__(
        self, name: str, policy: Any, draws: Any, model: Accounted, settings: CallSettings
    ) -> None:
        self.name, self.policy, self.draws = name, policy, draws
        self.model, self.settings = model, settings

    def template(self, family: str) -> prompts.PromptFile:
        return prompts.load(family, str(self.policy[f"prompt.{family}"]))

    def __call__(
        self,
        purpose: Purpose,
        schema: Schema,
        minute: int,
        event_id: int,
        key: tuple[Any, ...],
        nothing: Callable[[Any], bool] | None = None,
        **values: str,
    ) -> Any | None:
        """The parsed reply, or None when it could not be parsed (the row says why);
        `nothing` tells a reply that chooses nothing (its row says so).
        Endpoint failures, cache misses and spent budgets propagate: they end the episode."""
        family, user = SECTIONS.get(purpose, (str(purpose), "user"))
        template = self.template(family)
        seed = int(self.draws.uniform("llm", self.name, str(purpose), minute, *key) * 2**31)
        messages = template.messages(user, name=self.name, time=words.clock(minute), **values)
        call = ChatCall(
            purpose,
            messages,
            float(self.policy["llm.temperature"]),
            self.settings.max_tokens,
            seed,
            schema_name=str(purpose),
            schema_json=as_json(schema),
            structured_output=self.settings.structured_output,
            agent=self.name,
            minute=minute,
            event_id=event_id,
        )
        return ask(self.model, call, self.settings.parse_retries, nothing)
