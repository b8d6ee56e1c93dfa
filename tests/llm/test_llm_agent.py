"""The LLM agent under the contract, against the stand-in model over real HTTP."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from harness.agents.llm import LLMAgents, llm_agent, raw_numbers
from harness.agents.llm.config import LLMConfig
from harness.engine.episode import Episode
from harness.engine.hashing import state_hash
from harness.engine.plugins import configured
from harness.engine.runner import _execute
from policies import load_policy
from scenarios import load_scenario

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def careful():
    return load_policy(ROOT / "policies" / "careful.yaml")


def config(base_url: str, **changes) -> LLMConfig:
    data = {
        "endpoint": {
            "base_url": base_url,
            "model": "standin-1",
            "max_retries": 1,
            "backoff_s": 0.01,
            "backoff_max_s": 0.02,
        }
    }
    for section, values in changes.items():
        data.setdefault(section, {}).update(values)
    return LLMConfig.model_validate(data)


def run(cfg: LLMConfig, runs, policy, scenario: str = "public_fact", seed: int = 0):
    return Episode(
        load_scenario(scenario), policy, seed, LLMAgents(cfg.model_dump_json(), str(runs))
    ).run()


def test_the_words_are_the_models_and_a_rerun_makes_no_call(standin, tmp_path, careful):
    first = run(config(standin.base_url), tmp_path, careful)
    said = first["utterances"].to_pylist()
    assert said and all(u["text_by"] == "agent" for u in said)
    assert any("told me" in u["text"] for u in said)  # the stand-in's words, not a template
    calls = first["llm_calls"].to_pylist()
    made = standin.stats()["completions"]
    # every call is a row, plus the one probe `structured_output: auto` made to find the mode
    assert len(calls) + 1 == made and not any(c["cache_hit"] for c in calls)
    assert {c["purpose"] for c in calls} == {"importance", "trust", "share", "act", "answer"}
    assert {c["structured_output"] for c in calls} == {"json_schema"}
    assert {c["outcome"] for c in calls} <= {"valid", "chose_nothing"}
    assert any(c["tokens_reused"] for c in calls)  # the stand-in's prefix cache said so
    # careful.yaml shares eagerly: once the policy's draw decides to share, a claim is asked for
    assert not [c for c in calls if c["purpose"] == "share" and c["outcome"] == "chose_nothing"]
    again = run(config(standin.base_url), tmp_path, careful)
    assert standin.stats()["completions"] == made  # zero calls
    assert all(c["cache_hit"] for c in again["llm_calls"].to_pylist())
    for name, table in first.items():
        if name != "llm_calls":
            assert table.equals(again[name]), name


def test_every_prompt_of_a_run_carries_words_not_numbers(standin, tmp_path, careful):
    run(config(standin.base_url), tmp_path, careful, "rumor", 1)
    db = sqlite3.connect(tmp_path / "llm" / "cache.sqlite")
    requests = [json.loads(r) for (r,) in db.execute("select request from replies")]
    assert requests
    for request in requests:
        for message in request["messages"]:
            assert raw_numbers(message["content"]) == [], message["content"]


def test_a_probe_leaves_the_agent_unchanged(standin, tmp_path, careful):
    episode = Episode(
        load_scenario("public_fact"),
        careful,
        0,
        LLMAgents(config(standin.base_url).model_dump_json(), str(tmp_path)),
    )
    episode.run(until=episode.scenario.start + 36 * 60)
    for name, agent in episode.agents.items():
        before = state_hash(agent)
        agent.answer("bakery_closed_day2", episode.now)
        assert state_hash(agent) == before, name


def test_state_round_trips_and_the_run_continues_identically(standin, tmp_path, careful):
    factory = LLMAgents(config(standin.base_url).model_dump_json(), str(tmp_path))
    whole = Episode(load_scenario("rumor"), careful, 2, factory).run()
    half = Episode(load_scenario("rumor"), careful, 2, factory)
    half.run(until=half.scenario.start + 24 * 60)
    restored = Episode(load_scenario("rumor"), careful, 2, factory)
    restored.set_state(json.loads(json.dumps(half.get_state())))
    rest = restored.run()
    for name in ("utterances", "probes", "actions", "memory_ops", "trust"):
        assert rest[name].equals(whole[name]), name


def test_unparsable_replies_are_rows_and_the_episode_goes_on(standin_factory, tmp_path, careful):
    server = standin_factory("--garble-first", "1000")
    tables = run(config(server.base_url, calls={"parse_retries": 1}), tmp_path, careful)
    calls = tables["llm_calls"].to_pylist()
    assert calls and all(c["error"].startswith("unparsable reply") for c in calls)
    assert tables["utterances"].num_rows == 0  # nothing parsed, nothing said
    assert tables["probes"].num_rows > 0  # still interviewed: "I don't know"


def _record(cfg: LLMConfig, runs, careful, scenario="public_fact"):
    options = {"config": cfg.model_dump(mode="json"), "runs_dir": str(runs), "run_id": "t"}
    return _execute(
        load_scenario(scenario),
        dict(careful),
        0,
        configured("harness.agents.llm:llm_agent", options),
    )


def test_cache_only_turns_a_miss_into_the_status_cache_miss(tmp_path, careful):
    cfg = config("http://127.0.0.1:9/v1", cache={"cache_only": True})
    record = _record(cfg, tmp_path, careful)
    assert record.status == "cache_miss" and "not in the response cache" in record.error


def test_a_spent_budget_ends_the_episode_as_budget_exhausted(standin, tmp_path, careful):
    record = _record(config(standin.base_url, budgets={"episode_tokens": 2000}), tmp_path, careful)
    assert record.status == "budget_exhausted" and "2000" in record.error
    # what it spent before the stop is still accounted: at least the budget, all paid for
    usage = record.model_usage
    assert usage["tokens_in"] + usage["tokens_out"] >= 2000
    assert usage["paid_in"] == usage["tokens_in"] and usage["calls"] > 1


def test_an_endpoint_that_is_gone_is_a_failed_episode(tmp_path, careful):
    record = _record(config("http://127.0.0.1:9/v1"), tmp_path, careful)
    assert record.status == "failed" and "127.0.0.1:9" in record.error


def test_the_factory_needs_its_options():
    with pytest.raises(ValueError, match="--llm-config"):
        llm_agent(None)
