"""Shared fixtures: one Ray cluster per test session (ray.init costs seconds), CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytest_plugins = ["tests.servers"]  # PostgreSQL, MLflow server, Ray head: fixtures by name
os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")  # as the CLI's entry point does
# the tests' run folders are sealed with a key of their own, never the user's (set before the
# plug-ins above copy the environment for the processes they start)
if "VILLAGELAB_SEAL_KEYS" not in os.environ:
    os.environ["VILLAGELAB_SEAL_KEYS"] = tempfile.mkdtemp(prefix="villagelab-seal-keys-")
os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")


@pytest.fixture(scope="session")
def ray_cluster():
    """A local Ray cluster with 2 workers, started once and shared by every Ray test."""
    import ray

    from harness import ensure_ray
    from harness.engine.runner import stop_local_cluster

    ensure_ray(workers=2)
    yield ray
    stop_local_cluster()


def villagelab(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed command as a user would, capturing what it prints."""
    exe = Path(sys.executable).with_name("villagelab")
    return subprocess.run(
        [str(exe), *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )


@pytest.fixture
def cli():
    return villagelab


def pytest_addoption(parser):
    parser.addoption(
        "--robustness-full",
        action="store_true",
        help="tests/robustness: thousands of generated cases instead of CI's fixed sample",
    )


@pytest.fixture(scope="session")
def robustness_full(request) -> bool:
    return bool(request.config.getoption("--robustness-full"))
