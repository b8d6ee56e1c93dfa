"""The frozen harness: `engine` (contract, world, tick loop, traces, runners, hashes),
`agents` (the built-in agents and the agent registry) and `worlds` (physics plug-ins that
scenarios name). The engine's public names are re-exported here, loaded on first use."""

from __future__ import annotations

from typing import Any

from . import engine

__all__ = list(engine.__all__)


def __getattr__(name: str) -> Any:
    return getattr(engine, name)
