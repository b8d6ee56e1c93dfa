"""The LLM agent's declared policy surface against what it reads in runs (the stand-in model)."""

from __future__ import annotations

from pathlib import Path

from llm_servers import start_standin
from test_llm_agent import config

from harness.agents.llm import LLMAgents
from harness.agents.registry import resolve
from harness.engine.episode import Episode
from policies import WHITELIST, load_policy
from scenarios import load_scenario
from tests.test_policy_surface import reads_by_agents

ROOT = Path(__file__).resolve().parents[2]


def test_the_llm_agent_reads_only_its_declared_surface(tmp_path):
    server = start_standin(tmp_path)
    try:
        factory = LLMAgents(config(server.base_url).model_dump_json(), str(tmp_path))
        careful = load_policy(ROOT / "policies" / "careful.yaml")
        with reads_by_agents() as read:
            for name in ("public_fact", "replan_bridge", "support_policy"):  # a character too
                Episode(load_scenario(name), careful, 0, factory).run()
    finally:
        server.kill()
    llm = resolve("harness.agents.llm:llm_agent")
    assert read <= set(llm.surface)
    assert {p.name for p in WHITELIST if p.name.startswith(("prompt.", "llm."))} <= read
