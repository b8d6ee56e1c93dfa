"""A real local model: llama-cpp-python's OpenAI-compatible server, when one is at hand.

Runs when `llama_cpp` (with its server extra) is installed and VILLAGELAB_LLAMA_MODEL names a
local GGUF file; skipped cleanly otherwise (no model is ever downloaded by the tests).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from harness.agents.llm import (
    Accounted,
    Budgets,
    ChatCall,
    Message,
    Purpose,
    ResponseCache,
    ask,
    connect,
)
from harness.agents.llm.config import EndpointConfig
from harness.agents.llm.structured import as_json, choice, record

MODEL = os.environ.get("VILLAGELAB_LLAMA_MODEL", "")


def _server_available() -> bool:
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError:
        return False
    return True


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not MODEL or not Path(MODEL).is_file(),
        reason="set VILLAGELAB_LLAMA_MODEL to a local GGUF model file",
    ),
    pytest.mark.skipif(
        not _server_available(),
        reason="pip install 'llama-cpp-python[server]' to run a local model",
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_structured_answers_from_a_local_llama_cpp_server(tmp_path):
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            MODEL,
            "--model_alias",
            "local",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base_url = f"http://127.0.0.1:{port}/v1"
        for _ in range(600):  # loading a model takes a while; bounded at ~5 minutes
            try:
                if httpx.get(f"{base_url}/models", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None, "the llama.cpp server exited"
            time.sleep(0.5)
        ep = EndpointConfig(base_url=base_url, model="local", timeout_s=300, max_retries=1)
        model = Accounted(
            ResponseCache(tmp_path / "c.sqlite"), connect(ep, None, tmp_path), "local", Budgets()
        )
        schema = record(modality=choice(["certain", "likely", "rumor"]))
        call = ChatCall(
            Purpose.ANSWER,
            (
                Message("system", "Answer with JSON only."),
                Message(
                    "user",
                    "Someone said the bridge might be blocked tomorrow. How sure is "
                    "that: certain, likely or rumor?",
                ),
            ),
            0.0,
            32,
            7,
            "answer",
            as_json(schema),
            agent="ana",
        )
        value = ask(model, call, parse_retries=2)
        (row, *_) = model.drain()
        assert row.tokens_in > 0 and not row.cache_hit
        assert value is None or value["modality"] in ("certain", "likely", "rumor")
        again = model.complete(call)
        assert again.cache_hit  # the second time costs nothing
    finally:
        server.kill()
        server.wait(timeout=30)
