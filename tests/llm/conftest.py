"""Fixtures: the stand-in model as a real server process on a free loopback port, and the
real model (llama-cpp-python's server) that .ci/run serves for the tests marked real_model."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
from llm_servers import (
    REAL_URL_ENV,
    Standin,
    real_model_problem,
    real_model_required,
    start_standin,
)


@dataclass(frozen=True)
class RealModel:
    base_url: str
    model: str


@pytest.fixture(scope="session")
def real_model() -> RealModel:
    """The served real model; skipped with the reason when there is none — except in CI,
    where it fails: the real-model tests must run there."""
    base_url = os.environ.get(REAL_URL_ENV, "").rstrip("/")
    model, problem = real_model_problem(base_url)
    if problem is not None or model is None:
        if real_model_required():
            pytest.fail(f"real_model: {problem} — CI must run these tests (.ci/run serves it)")
        pytest.skip(f"real_model: {problem}")
    return RealModel(base_url, model)


@pytest.fixture
def standin_factory(tmp_path):
    started: list[Standin] = []

    def start(*flags: str, env: dict[str, str] | None = None) -> Standin:
        server = start_standin(tmp_path, *flags, env=env)
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


@pytest.fixture
def standin(standin_factory) -> Standin:
    return standin_factory()
