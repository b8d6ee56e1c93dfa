"""The LLM agent as a character (issue 18): on the companion suite it answers the lines said to
it through the model and keeps a promise with a reminder the model words; a rerun from the
cache alone is byte-identical; the companion metrics score what it said. Against the stand-in
model over real HTTP."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pandas as pd
import pytest
from llm_servers import config_text

ROOT = Path(__file__).resolve().parents[2]
CAREFUL = str(ROOT / "policies" / "careful.yaml")
pytestmark = pytest.mark.slow


def _run(cli, tmp_path: Path, config: Path, out: str, *extra: str):
    return cli(
        *shlex.split("run --suite companion --agent llm --seeds 0 --serial"),
        *("--llm-config", str(config), "--policy", CAREFUL),
        *("--out", out, "--json", f"{out}.json", *extra),
        cwd=tmp_path,
    )


def _lines(stdout: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in stdout.splitlines() if ": " in line)


def test_the_llm_character_replies_through_the_model_reruns_from_the_cache_and_is_scored(
    cli, standin, tmp_path
):
    config = tmp_path / "llm.yaml"
    config.write_text(config_text(standin.base_url))
    first = _run(cli, tmp_path, config, "first")
    # the stand-in follows no safety rule: the harness does not enforce one, the scorecard
    # measures it (exit 1: a guardrail broken, not a failed run)
    assert first.returncode == 1, first.stderr
    assert "crisis_handled" in _lines(first.stdout + first.stderr)["guardrail broken"]
    assert _lines(first.stdout)["episodes"] == "6 ok, 0 not ok"

    d = pd.read_parquet(tmp_path / "first" / "traces" / "dialogue")
    said = d[d["turn"].eq("line")]
    replies = d[d["turn"].eq("reply")]
    assert set(said["line_id"]) == set(replies["line_id"])  # every line answered
    # the model's words, verbatim: the stand-in repeats the prompt's first line in the first
    # person ("player writes to me: ...") or the memory it chose
    assert replies["text"].str.contains("writes to me:").any()
    calls = pd.read_parquet(tmp_path / "first" / "traces" / "llm_calls")
    assert {"reply", "remind"} <= set(calls["purpose"])
    assert len(calls[calls["purpose"].eq("reply")]) == len(replies)
    # a question answered from memory carries the remembered proposition and value: the
    # desk's refund question after the second notice gets the notice's fourteen days
    policy = replies[replies["scenario"].eq("support_policy")].set_index("line_id")
    assert policy.loc["c1", "proposition"] == "refund_window"
    assert policy.loc["c1", "value"] == "fourteen days"
    # a promise asked for is kept by one unprompted reminder about it (at its time: below,
    # commitment_recall)
    weeks = d[d["scenario"].eq("companion_weeks")]
    reminded = weeks[weeks["turn"].eq("proactive") & weeks["proposition"].eq("call_mum")]
    assert len(reminded) == 1

    scores = json.loads((tmp_path / "first.json").read_text())["scenarios"]
    assert scores["companion_weeks"]["commitment_recall"]["mean"] == 1.0
    assert scores["companion_crisis"]["crisis_handled"]["mean"] == 0.0
    assert scores["companion_crisis"]["crisis_memory_writes"]["mean"] == 0.0
    assert scores["support_privacy"]["customer_privacy_leaks"]["mean"] > 0  # it told ben
    assert "policy_currency" in scores["support_policy"]
    assert scores["companion_weeks"]["bare_numbers"]["mean"] == 0.0
    # the background layers' rules, measured on what the model said: told where each memory
    # came from, the stand-in repeats it (what the desk read is said as read), but it gives
    # the weather and the almanac's page again after their reports expired
    assert scores["support_policy"]["source_mixups"]["mean"] == 0.0
    assert scores["companion_weeks"]["reports_out_of_date"]["mean"] == 2.0

    made = standin.stats()["completions"]
    standin.kill()  # the rerun has no endpoint at all
    again = _run(cli, tmp_path, config, "again", "--cache-only")
    assert again.returncode == 1, again.stderr
    lines = _lines(again.stdout)
    assert lines["llm_calls_made"] == "0" and lines["llm_cache_hit_rate"] == "1.000"
    assert made > 0 and lines["episodes"] == "6 ok, 0 not ok"
    files = sorted((tmp_path / "first" / "traces").rglob("*.parquet"))
    assert any("dialogue" in f.parts for f in files)
    for f in files:
        if "llm_calls" not in f.parts:
            twin = tmp_path / "again" / f.relative_to(tmp_path / "first")
            assert f.read_bytes() == twin.read_bytes(), f


def _episode(base_url: str, runs: Path, policy, scenario: str = "companion_weeks"):
    from test_llm_agent import config

    from harness.agents.llm import LLMAgents
    from harness.engine.episode import Episode
    from scenarios import load_scenario

    factory = LLMAgents(config(base_url).model_dump_json(), str(runs))
    return Episode(load_scenario(scenario), policy, 1, factory)


def test_a_character_restores_mid_conversation_and_continues_identically(standin, tmp_path):
    """Lines waiting for a reply, promises not yet kept and when each speaker last wrote are
    state: a character restored on day 2 (a promise still due) goes on as if never stopped."""
    from policies import load_policy

    careful = load_policy(CAREFUL)
    whole = _episode(standin.base_url, tmp_path, careful).run()
    half = _episode(standin.base_url, tmp_path, careful)
    half.run(until=half.scenario.start + 36 * 60)
    assert half.agents["mira"].get_state()["dialogue"]["agenda"]  # the call to mum, still due
    restored = _episode(standin.base_url, tmp_path, careful)
    restored.set_state(json.loads(json.dumps(half.get_state())))
    rest = restored.run()
    for name in ("dialogue", "memory_ops", "probes"):
        assert rest[name].equals(whole[name]), name


def test_the_caring_prompt_carries_words_and_the_emergency_numbers_only(standin, tmp_path):
    import sqlite3

    from harness.agents.llm import raw_numbers
    from policies import load_policy

    caring = load_policy(CAREFUL).with_values({"prompt.reply": "caring"})
    done = _episode(standin.base_url, tmp_path, caring, "companion_crisis").run()
    assert done["dialogue"].num_rows > 0
    db = sqlite3.connect(tmp_path / "llm" / "cache.sqlite")
    requests = [json.loads(r) for (r,) in db.execute("select request from replies")]
    replies = [r for r in requests if "emergency numbers" in r["messages"][0]["content"]]
    assert replies and all("12356 or 120" in r["messages"][0]["content"] for r in replies)
    for request in requests:
        for message in request["messages"]:
            assert raw_numbers(message["content"]) == [], message["content"]
