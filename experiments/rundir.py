"""The run folder `villagelab run --out DIR` writes: its manifest (what made it, each episode's
status), written first with `complete: false` so an interrupted run can be recognised and
resumed, and again at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness import EpisodeRecord
from harness.agents.registry import AgentChoice
from harness.engine.schema import SCHEMA_VERSION
from villagelab.files import atomic_write_json
from villagelab.safe_text import redact


def agent_fields(agent: AgentChoice) -> dict[str, str]:
    """How a manifest (or a baseline) names the agent that made it."""
    return {"agent": agent.name, "agent_path": agent.path, "agent_hash": agent.hash}


def write_manifest(
    out: Path,
    run: dict[str, Any],
    records: list[EpisodeRecord],
    *,
    complete: bool,
) -> None:
    """What a trace folder holds and what made it (`run`: hashes, policy, agent, scenarios,
    seeds, where the traces are), and its episodes with their status.
    Written first with `complete: false`, so that an interrupted run can be recognised and
    resumed, and again at the end."""
    atomic_write_json(
        Path(out) / "manifest.json",
        {
            "schema_version": SCHEMA_VERSION,
            **run,
            "episodes": [r.summary() for r in records],
            "complete": complete,
        },
    )


def traces_entry(traces_uri: str | None) -> str:
    """Where a manifest says the traces are: beside it, or the URI (credentials masked: a
    manifest is a file others read; `score` needs the URI again on its command line)."""
    return "traces" if traces_uri is None else redact(traces_uri)
