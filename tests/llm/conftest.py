"""Fixtures: the stand-in model as a real server process on a free loopback port."""

from __future__ import annotations

import pytest
from llm_servers import Standin, start_standin


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
