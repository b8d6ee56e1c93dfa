"""Accounting and limits: a row per call, deterministic episode budgets, a shared trial cap."""

from __future__ import annotations

import pytest

from harness.agents.llm import (
    Accounted,
    BudgetExhausted,
    Budgets,
    CacheMiss,
    ChatCall,
    EndpointFailure,
    Message,
    Purpose,
    ResponseCache,
    connect,
    estimated_cost,
    summarise,
)
from harness.agents.llm.config import EndpointConfig, Price


def call(n: int, agent: str = "ana") -> ChatCall:
    return ChatCall(
        Purpose.IMPORTANCE,
        (Message("user", f"- [m{n}] news number {n}"),),
        temperature=0.0,
        max_tokens=32,
        seed=n,
        agent=agent,
        minute=60 * n,
        event_id=n,
    )


def accounted(
    standin_url: str,
    tmp_path,
    budgets: Budgets | None = None,
    cache_only: bool = False,
    cache: ResponseCache | None = None,
) -> Accounted:
    ep = EndpointConfig(base_url=standin_url, model="standin-1", max_retries=0)
    inner = None if cache_only else connect(ep, None, tmp_path)
    return Accounted(
        cache or ResponseCache(tmp_path / "c.sqlite"),
        inner,
        "standin-1",
        budgets or Budgets(),
        cache_only,
    )


def test_one_row_per_call_with_tokens_latency_and_hits(standin, tmp_path):
    model = accounted(standin.base_url, tmp_path)
    model.complete(call(1))
    model.complete(call(1))
    first, second = model.drain()
    assert (first.agent, first.minute, first.event_id, first.purpose) == (
        "ana",
        60,
        1,
        "importance",
    )
    assert first.tokens_in > 0 and first.tokens_out > 0 and first.attempts == 1
    assert not first.cache_hit and first.latency_ms > 0 and first.error is None
    assert second.cache_hit and second.latency_ms == 0 and second.attempts == 0
    assert (second.tokens_in, second.tokens_out) == (first.tokens_in, first.tokens_out)
    assert model.drain() == []


def test_a_failed_call_is_a_row_with_its_error(tmp_path):
    model = accounted("http://127.0.0.1:9/v1", tmp_path)
    with pytest.raises(EndpointFailure):
        model.complete(call(1))
    (row,) = model.drain()
    assert row.error.startswith("failed: ") and row.tokens_in == 0
    offline = accounted("http://127.0.0.1:9/v1", tmp_path, cache_only=True)
    with pytest.raises(CacheMiss):
        offline.complete(call(2))
    assert offline.drain()[0].error.startswith("cache_miss: ")


def test_the_episode_budget_stops_at_the_same_call_cached_or_not(standin, tmp_path):
    def calls_until_exhausted(model: Accounted) -> int:
        for n in range(1, 50):
            try:
                model.complete(call(n))
            except BudgetExhausted:
                return n
        raise AssertionError("the budget never ran out")

    cap = Budgets(episode_tokens=60)
    cache = ResponseCache(tmp_path / "c.sqlite")
    fresh = calls_until_exhausted(accounted(standin.base_url, tmp_path, cap, cache=cache))
    made = standin.stats()["completions"]
    rerun = calls_until_exhausted(accounted(standin.base_url, tmp_path, cap, cache=cache))
    assert fresh == rerun > 1
    assert standin.stats()["completions"] == made  # the rerun was served from the cache


def test_the_trial_budget_is_shared_by_every_episode_of_the_trial(standin, tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    cap = Budgets(trial_tokens=40, trial_scope="study/7")
    a = accounted(standin.base_url, tmp_path, cap, cache=cache)
    b = accounted(standin.base_url, tmp_path, cap, cache=cache)
    with pytest.raises(BudgetExhausted, match="trial paid for"):
        for n in range(1, 50):
            (a if n % 2 else b).complete(call(n, "ana" if n % 2 else "bo"))
    spent = cache.spent("study/7")
    assert spent >= 40
    # a cached call costs nothing, so it is still answered after the cap
    assert a.complete(call(1)).cache_hit


def test_cost_and_summary():
    price = Price(input=2.0, output=8.0)
    assert estimated_cost(1_000_000, 500_000, price) == pytest.approx(6.0)
    assert estimated_cost(10, 10, None) is None
    rows = [
        {
            "cache_hit": False,
            "error": None,
            "tokens_in": 100,
            "tokens_out": 20,
            "latency_ms": 10.0,
            "overhead_ms": 1.0,
        },
        {
            "cache_hit": True,
            "error": None,
            "tokens_in": 100,
            "tokens_out": 20,
            "latency_ms": 0.0,
            "overhead_ms": 0.5,
        },
    ]
    s = summarise(rows, price)
    assert s["llm_calls"] == 2 and s["llm_cache_hit_rate"] == 0.5
    assert s["llm_tokens_in"] == 200 and s["llm_tokens_paid"] == 120
    assert s["llm_cost_usd"] == pytest.approx((100 * 2 + 20 * 8) / 1e6)
