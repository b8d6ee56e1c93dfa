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
    "read_table": "store",
    "read_traces": "store",
    "write_episode": "store",
}
__all__ = [
    "SCHEMA_VERSION",
    "TABLES",
    "TABLE_NAMES",
    "Agent",
    "AgentSetup",
    "Answer",
    "Claim",
    "Episode",
    "EpisodeRecord",
    "Intent",
    "Job",
    "Meaning",
    "Observation",
    "Request",
    "ensure_ray",
    "harness_hash",
    "instrument_hash",
    "read_table",
    "read_traces",
    "run_episode",
    "run_ray",
    "run_serial",
    "state_hash",
    "write_episode",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'harness.engine' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
