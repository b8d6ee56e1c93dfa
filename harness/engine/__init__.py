"""The engine: the contract, the world and its action registry, the tick loop, the recorder and
trace store, keyed random draws, the runners and the hashes.

It imports no agent and names no scenario: agents come in through the contract, by import path.
Names are loaded on first use, so that importing one module (the contract) stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "Agent": "contract",
    "AgentSetup": "contract",
    "Answer": "contract",
    "Claim": "contract",
    "Intent": "contract",
    "Meaning": "contract",
    "Observation": "contract",
    "Request": "contract",
    "Episode": "episode",
    "run_episode": "episode",
    "harness_hash": "hashing",
    "instrument_hash": "hashing",
    "state_hash": "hashing",
    "EpisodeRecord": "runner",
    "Job": "runner",
    "ensure_ray": "runner",
    "run_ray": "runner",
    "run_serial": "runner",
    "SCHEMA_VERSION": "schema",
    "TABLES": "schema",
    "TABLE_NAMES": "schema",
    "atomic_write_json": "store",
    "read_table": "store",
    "read_traces": "store",
    "write_episode": "store",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'harness.engine' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
