"""The frozen harness: world, agents, tick loop, traces, runners and the two hashes."""

from .agent import ReferenceAgent
from .contract import Agent, Answer, Claim, Intent, Meaning, Observation, Request
from .episode import AGENT_KINDS, Episode, run_episode
from .hashing import harness_hash, instrument_hash
from .runner import EpisodeRecord, Job, ensure_ray, run_ray, run_serial
from .schema import SCHEMA_VERSION, TABLE_NAMES, TABLES
from .simple_agent import SimpleAgent
from .store import atomic_write_json, read_table, read_traces, write_episode

__all__ = [
    "AGENT_KINDS",
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
    "ReferenceAgent",
    "Request",
    "SimpleAgent",
    "atomic_write_json",
    "ensure_ray",
    "harness_hash",
    "instrument_hash",
    "read_table",
    "read_traces",
    "run_episode",
    "run_ray",
    "run_serial",
    "write_episode",
]
