"""Building LLM agents for an episode: one model (cache, accounting, budgets) per episode.

`LLMAgents` is the factory the engine calls with each agent's `AgentSetup`. It is plain,
picklable data (the validated config without any key, the runs folder, the trial's scope), so
it can travel to a Ray worker, which builds the client — and reads the API key — itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.engine.contract import AgentSetup

from .agent import LLMAgent
from .asking import CallSettings
from .config import LLMConfig
from .model import open_model


def known_places(spec: Any) -> tuple[str, ...]:
    """The places an agent knows from its own life: home, routine and errands."""
    places = {spec.home, *(p for slot in spec.routine for p in slot.go)}
    for errand in spec.errands:
        places.update((errand.target, *errand.via))
    return tuple(sorted(places))


@dataclass
class LLMAgents:
    config_json: str  # LLMConfig.model_dump_json(): no key, only the key's variable name
    runs_dir: str
    trial_scope: str | None = None
    _episode: Any = field(default=None, init=False, repr=False, compare=False)
    _model: Any = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def of(
        cls, config: LLMConfig, runs_dir: str | Path, trial_scope: str | None = None
    ) -> LLMAgents:
        return cls(config.model_dump_json(), str(runs_dir), trial_scope)

    def __getstate__(self) -> dict[str, Any]:
        return {
            "config_json": self.config_json,
            "runs_dir": self.runs_dir,
            "trial_scope": self.trial_scope,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __call__(self, setup: AgentSetup) -> LLMAgent:
        config = LLMConfig.model_validate_json(self.config_json)
        if self._episode is not setup.draws:  # agents of one episode share its draws
            self._episode = setup.draws
            self._model = open_model(config, self.runs_dir, trial_scope=self.trial_scope)
        return LLMAgent(
            setup,
            self._model,
            CallSettings(config.calls.max_tokens, config.calls.parse_retries),
            known_places(setup.spec),
        )
