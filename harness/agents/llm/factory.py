"""Building LLM agents for an episode: one model (cache, accounting, budgets) per episode.

`LLMAgents` is the factory the engine calls with each agent's `AgentSetup`. It is plain,
picklable data (the validated config without any key, the runs folder, the trial's scope), so
it can travel to a Ray worker, which builds the client — and reads the API key — itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from harness.engine.contract import AgentSetup

from .accounting import ModelCall, trial_metrics
from .agent import LLMAgent
from .asking import CallSettings
from .calls import LLMFailure
from .config import LLMConfig
from .endpoint import public_endpoint
from .formats import StructuredOutput
from .model import open_model, resolve_format
from .prompts import PROMPTS, prompt_files


def known_places(spec: Any) -> tuple[str, ...]:
    """The places an agent knows from its own life: home, routine and errands."""
    places = {spec.home, *(p for slot in spec.routine for p in slot.go)}
    for errand in spec.errands:
        places.update((errand.target, *errand.via))
    return tuple(sorted(places))


@dataclass
class LLMAgents:
    """The factory of one run: the validated config (without any key: only the name of the
    variable that holds it), the runs folder of the cache, and the run's id, which with the
    policy's hash names a trial in the shared token ledger."""

    # the table of its own it records: a row per model call (tokens, latency, cache, cost)
    row_types: ClassVar[tuple[type, ...]] = (ModelCall,)
    config_json: str
    runs_dir: str
    run_id: str | None = None
    _episode: Any = field(default=None, init=False, repr=False, compare=False)
    _model: Any = field(default=None, init=False, repr=False, compare=False)
    _config: Any = field(default=None, init=False, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {"config_json": self.config_json, "runs_dir": self.runs_dir, "run_id": self.run_id}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __call__(self, setup: AgentSetup) -> LLMAgent:
        if self._config is None:  # `auto` resolved once per process (the driver usually did)
            config = LLMConfig.model_validate_json(self.config_json)
            self._config = resolve_format(config, self.runs_dir)
        config = self._config
        if self._episode is not setup.draws:  # agents of one episode share its draws
            policy_hash = getattr(setup.policy, "hash", None)
            scope = f"{self.run_id}/{policy_hash}" if self.run_id and policy_hash else None
            self._episode = setup.draws
            self._model = open_model(config, self.runs_dir, trial_scope=scope)
        return LLMAgent(
            setup,
            self._model,
            CallSettings(
                config.calls.max_tokens,
                config.calls.parse_retries,
                config.endpoint.structured_output,
            ),
            known_places(setup.spec),
        )


def agent_options(config: LLMConfig, runs_dir: str | Path, run_id: str | None) -> dict[str, Any]:
    """What `--llm-config` adds to the agent's reference: plain JSON for the workers, with
    `structured_output: auto` resolved here, once for the run (an endpoint that does not
    answer the probe, or a cache-only replay that never found a mode, leaves `auto`: each
    episode then meets the same failure and records it)."""
    try:
        config = resolve_format(config, runs_dir)
    except LLMFailure:
        pass
    return {"config": config.model_dump(mode="json"), "runs_dir": str(runs_dir), "run_id": run_id}


class LLMAgentFactory:
    """`harness.agents.llm:llm_agent`: needs its options (`--llm-config FILE`) before it can
    make an agent; its prompt templates count as its code (`hashed_files`)."""

    hashed_files = tuple((p.relative_to(PROMPTS.parents[1]).as_posix(), p) for p in prompt_files())
    row_types = LLMAgents.row_types
    # what a search may change for it: its prompts and sampling, and the reference memory,
    # trust and sharing knobs it reuses (tests/test_policy_surface.py checks it against a run)
    policy_surface = (
        "prompt",
        "llm",
        "belief.second_hand_cap",
        "memory.capacity",
        "memory.importance_threshold",
        "memory.keep_source",
        "motivation.talk_budget",
        "retrieval.plan_context",
        "retrieval.recency_weight",
        "retrieval.relevance_weight",
        "retrieval.top_k",
        "sharing.claims_per_chat",
        "sharing.proactive",
        "sharing.respect_privacy",
        "trust.learning_rate",
        "trust.prior",
    )

    def __call__(self, setup: AgentSetup) -> LLMAgent:
        raise ValueError("the llm agent needs its model: give --llm-config FILE")

    def configure(self, options: dict[str, Any]) -> LLMAgents:
        config = LLMConfig.model_validate(options["config"])
        return LLMAgents(config.model_dump_json(), options["runs_dir"], options.get("run_id"))

    def facts(self, options: dict[str, Any]) -> dict[str, str]:
        """What a run records of its agents' model (manifest, MLflow): which model, where (the
        endpoint without credentials) and how it is asked for JSON."""
        if "config" not in options:
            return {}
        config = LLMConfig.model_validate(options["config"])
        return {
            "llm_model": config.endpoint.model,
            "llm_endpoint": public_endpoint(config.endpoint.base_url),
            "llm_structured_output": str(config.endpoint.structured_output),
        }

    def usage_metrics(
        self, options: dict[str, Any] | None, usages: list[dict[str, float]]
    ) -> dict[str, float]:
        """A trial's model calls (calls, cache hit rate, tokens, tokens paid, cost), priced by
        the config's price table, from its episodes' usage."""
        price = LLMConfig.model_validate(options["config"]).price() if options else None
        return trial_metrics(usages, price)

    def identity(self, options: dict[str, Any]) -> str:
        """What in the options decides behaviour: the model and how it is asked — not the
        endpoint's address, timeouts, budgets or where the cache lives."""
        config = LLMConfig.model_validate(options["config"])
        mode = config.endpoint.structured_output
        how = f"{config.endpoint.model}/{config.calls.max_tokens}/{config.calls.parse_retries}"
        # json_schema (the first mode there was) keeps the identity it always had
        return how if mode == StructuredOutput.JSON_SCHEMA else f"{how}/{mode}"
