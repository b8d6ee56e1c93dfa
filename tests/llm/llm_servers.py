"""The stand-in model as a real server process on a free loopback port (a test helper)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Standin:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict[str, int]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=10) as r:
            return json.loads(r.read())

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)


def start_standin(folder: Path, *flags: str, env: dict[str, str] | None = None) -> Standin:
    """Start `python -m experiments.standin` on port 0 and wait (bounded) for its port."""
    port_file = folder / f"standin-{time.monotonic_ns()}.port"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "experiments.standin",
            "--port",
            "0",
            "--port-file",
            str(port_file),
            *flags,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    for _ in range(300):  # up to ~30 s on a loaded machine
        if port_file.exists():
            return Standin(process, int(port_file.read_text()))
        if process.poll() is not None:
            raise RuntimeError(f"the stand-in exited with {process.returncode}")
        time.sleep(0.1)
    process.kill()
    raise RuntimeError("the stand-in did not start")


def config_text(base_url: str, **sections: dict) -> str:
    """An LLM config file's text: the endpoint plus any sections given."""
    endpoint = {
        "base_url": base_url,
        "model": "standin-1",
        "timeout_s": 10,
        "connect_timeout_s": 2,
        "max_retries": 2,
        "backoff_s": 0.01,
        "backoff_max_s": 0.05,
        **sections.pop("endpoint", {}),
    }
    return json.dumps({"endpoint": endpoint, **sections}, indent=1)  # JSON is YAML


# --- a real model: llama-cpp-python's server, as .ci/llama_server serves it ----------------------
REAL_URL_ENV = "VILLAGELAB_LLAMA_URL"
HOW_TO_SERVE = (
    ".ci/llama_server build && export VILLAGELAB_LLAMA_URL=$(.ci/llama_server start) "
    "(llama-cpp-python[server] serving SmolLM2-135M on 127.0.0.1)"
)


def real_model_required() -> bool:
    """In CI a real-model test never skips: a missing server is a failure there."""
    return bool(os.environ.get("CI")) or os.environ.get("VILLAGELAB_REAL_MODEL") == "required"


def real_model_problem(base_url: str) -> tuple[str | None, str | None]:
    """(the served model's id, None), or (None, why there is no real model to test)."""
    if not base_url:
        return None, f"{REAL_URL_ENV} is not set; serve a real model with {HOW_TO_SERVE}"
    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=10) as r:
            models = json.loads(r.read())["data"]
    except (OSError, ValueError, KeyError) as exc:
        return None, f"no model server answers at {base_url} ({exc}); serve one with {HOW_TO_SERVE}"
    if not models:
        return None, f"the server at {base_url} serves no model"
    return str(models[0]["id"]), None
