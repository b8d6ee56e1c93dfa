"""The engine: the contract, the world and its action registry, the tick loop, the recorder and
trace store, keyed random draws, the runners and the hashes.

It imports no agent and names no scenario: agents come in through the contract, by import path.
"""

from .contract import Agent, Answer, Claim, Intent, Meaning, Observation, Request
from .episode import Episode, run_episode
from .hashing import harness_hash, instrument_hash, state_hash
from .runner import EpisodeRecord, Job, ensure_ray, run_ray, run_serial
from .schema import SCHEMA_VERSION, TABLE_NAMES, TABLES
from .store import atomic_write_json, read_table, read_traces, write_episode

__all__ = [
    "SCHEMA_VERSION",
    "TABLES",
    "TABLE_NAMES",
    "Agent",
    "Answer",
    "Claim",
    "Episode",
    "EpisodeRecord",
    "Intent",
    "Job",
    "Meaning",
    "Observation",
    "Request",
    "atomic_write_json",
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
