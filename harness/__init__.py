"""The frozen harness: world, agents, tick loop, traces, runners and the two hashes."""

from .agent import ReferenceAgent
from .episode import Episode, run_episode
from .hashing import harness_hash, instrument_hash
from .runner import EpisodeRecord, Job, ensure_ray, run_ray, run_serial
from .schema import SCHEMA_VERSION, TABLE_NAMES, TABLES
from .store import atomic_write_json, read_table, read_traces, write_episode

__all__ = [
    "SCHEMA_VERSION", "TABLES", "TABLE_NAMES", "Episode", "EpisodeRecord", "Job",
    "ReferenceAgent", "atomic_write_json", "ensure_ray", "harness_hash", "instrument_hash",
    "read_table", "read_traces", "run_episode", "run_ray", "run_serial", "write_episode",
]
