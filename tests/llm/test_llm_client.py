"""The chat-completions client against a real server: replies, retries, typed failures, limits."""

from __future__ import annotations

import logging
import multiprocessing as mp
import threading
from pathlib import Path

import pytest
from llm_servers import start_standin

from harness.agents.llm import (
    CallSlots,
    ChatCall,
    EndpointFailure,
    HttpModel,
    Message,
    Purpose,
    connect,
)
from harness.agents.llm.config import EndpointConfig


def endpoint(base_url: str, **changes) -> EndpointConfig:
    values = {
        "base_url": base_url,
        "model": "standin-1",
        "timeout_s": 5,
        "connect_timeout_s": 2,
        "max_retries": 2,
        "backoff_s": 0.01,
        "backoff_max_s": 0.05,
        **changes,
    }
    return EndpointConfig(**values)


def call(text: str = "- [m1] the bakery is closed on day 2", seed: int = 1) -> ChatCall:
    return ChatCall(
        Purpose.ANSWER,
        (Message("system", "Reply."), Message("user", text)),
        temperature=0.0,
        max_tokens=64,
        seed=seed,
        agent="ana",
        minute=5,
    )


def test_a_call_returns_content_and_usage(standin, tmp_path):
    reply = connect(endpoint(standin.base_url), None, tmp_path).complete(call())
    assert reply.content == "the bakery is closed on day 2"
    assert reply.tokens_in > 0 and reply.tokens_out > 0
    assert reply.attempts == 1 and not reply.cache_hit and reply.latency_ms > 0


def test_retryable_errors_are_retried_then_succeed(standin_factory, tmp_path):
    server = standin_factory("--fail-first", "2")
    reply = connect(endpoint(server.base_url), None, tmp_path).complete(call())
    assert reply.attempts == 3
    assert server.stats()["completions"] == 3


def test_retries_run_out_into_a_typed_failure(standin_factory, tmp_path):
    server = standin_factory("--fail-first", "10")
    with pytest.raises(EndpointFailure, match=r"HTTP 503.*gave up after 2 attempts"):
        connect(endpoint(server.base_url, max_retries=1), None, tmp_path).complete(call())
    assert server.stats()["completions"] == 2


def test_a_slow_endpoint_times_out_into_a_typed_failure(standin_factory, tmp_path):
    server = standin_factory("--delay", "3")
    slow = endpoint(server.base_url, timeout_s=0.3, max_retries=1)
    with pytest.raises(EndpointFailure, match="timed out"):
        connect(slow, None, tmp_path).complete(call())


def test_errors_retrying_cannot_fix_fail_at_once(standin, tmp_path):
    wrong_model = endpoint(standin.base_url, model="gpt-x")
    with pytest.raises(EndpointFailure, match=r"HTTP 404: model 'gpt-x' not found"):
        connect(wrong_model, None, tmp_path).complete(call())
    assert standin.stats()["completions"] == 0  # refused before counting, and only once


def test_nothing_listening_is_a_typed_failure(tmp_path):
    server = start_standin(tmp_path)
    url = server.base_url
    server.kill()
    with pytest.raises(EndpointFailure, match="connection failed"):
        connect(endpoint(url, max_retries=1), None, tmp_path).complete(call())


def test_server_killed_mid_call_gives_a_typed_failure_not_a_hang(tmp_path):
    server = start_standin(tmp_path, "--delay", "5")
    model = connect(endpoint(server.base_url, timeout_s=30, max_retries=2), None, tmp_path)
    outcome: list[BaseException | object] = []

    def ask() -> None:
        try:
            outcome.append(model.complete(call()))
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome.append(exc)

    worker = threading.Thread(target=ask)
    worker.start()
    for _ in range(200):  # until the server has the request in hand
        if server.stats()["in_flight"] == 1:
            break
        threading.Event().wait(0.05)
    server.kill()
    worker.join(timeout=60)
    assert not worker.is_alive()
    assert isinstance(outcome[0], EndpointFailure)
    assert "connection failed" in str(outcome[0])


def test_the_api_key_is_sent_and_never_shown(standin_factory, tmp_path, caplog):
    secret = "sk-villagelab-secret-123"
    server = standin_factory("--api-key-env", "STANDIN_KEY", env={"STANDIN_KEY": secret})
    caplog.set_level(logging.DEBUG)
    model = HttpModel(endpoint(server.base_url), secret, tmp_path)
    assert model.complete(call()).content
    wrong = connect(endpoint(server.base_url), "sk-wrong-key-456", tmp_path)
    with pytest.raises(EndpointFailure, match="HTTP 401") as failure:
        wrong.complete(call())
    assert "sk-wrong" not in str(failure.value)
    assert secret not in repr(model) and secret not in caplog.text
    assert "sk-wrong" not in caplog.text


def test_credentials_in_the_url_never_reach_a_message(tmp_path):
    server = start_standin(tmp_path)
    url = server.base_url.replace("http://", "http://user:hunter22@") + "?api-key=qq-secret"
    model = connect(endpoint(url, max_retries=0), None, tmp_path)
    assert model.complete(call()).content  # basic auth and query reach the server
    server.kill()
    with pytest.raises(EndpointFailure) as failure:
        model.complete(call())
    assert "hunter22" not in str(failure.value) and "qq-secret" not in str(failure.value)
    assert "127.0.0.1" in str(failure.value)


# --- at most N calls in flight per endpoint, across processes --------------------------------------
def _caller(base_url: str, slots_dir: str, limit: int, calls: int, seed: int) -> None:
    model = connect(endpoint(base_url, max_concurrent=limit), None, Path(slots_dir))
    for n in range(calls):
        model.complete(call(seed=seed * 100 + n))


def test_concurrent_calls_are_capped_across_processes(standin_factory, tmp_path):
    server = standin_factory("--delay", "0.2")
    ctx = mp.get_context("spawn")
    procs = [
        ctx.Process(target=_caller, args=(server.base_url, str(tmp_path), 2, 3, i))
        for i in range(4)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    stats = server.stats()
    assert stats["completions"] == 12
    assert stats["max_in_flight"] <= 2


def _hold_slot(slots_dir: str, base_url: str, ready: mp.Event) -> None:  # type: ignore[valid-type]
    with CallSlots(Path(slots_dir), base_url, 1, 5.0).hold():
        ready.set()
        threading.Event().wait(120)


def test_a_slot_is_freed_when_its_holder_dies(tmp_path):
    ctx = mp.get_context("spawn")
    ready = ctx.Event()
    url = "http://127.0.0.1:9/v1"
    holder = ctx.Process(target=_hold_slot, args=(str(tmp_path), url, ready))
    holder.start()
    assert ready.wait(60)
    with (
        pytest.raises(EndpointFailure, match="slots stayed busy"),
        CallSlots(tmp_path, url, 1, 0.2).hold(),
    ):
        pass
    holder.kill()
    holder.join(timeout=30)
    with CallSlots(tmp_path, url, 1, 5.0).hold() as slot:
        assert slot == 0
