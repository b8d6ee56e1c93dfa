"""The run folder `villagelab run --out DIR` writes: its manifest (what made it, each episode's
status and trace files' SHA-256), written first with `complete: false` so an interrupted run
can be recognised and resumed, and again as episodes finish and at the end."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from harness import EpisodeRecord
from harness.agents.registry import AgentChoice
from harness.engine.integrity import seal
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
    resumed, and again after each episode and at the end. Each episode with traces lists its
    files' SHA-256; the manifest's own `sha256` seals the rest (an edited status, a deleted
    entry or a flipped byte breaks it)."""
    document = {
        "schema_version": SCHEMA_VERSION,
        **run,
        "episodes": [r.summary() for r in records],
        "complete": complete,
    }
    atomic_write_json(Path(out) / "manifest.json", {**document, "sha256": seal(document)})


def traces_entry(traces_uri: str | None) -> str:
    """Where a manifest says the traces are: beside it, or the URI (credentials masked: a
    manifest is a file others read; `score` needs the URI again on its command line)."""
    return "traces" if traces_uri is None else redact(traces_uri)


PROGRESS = "progress.jsonl"


def append_progress(out: Path, record: EpisodeRecord) -> None:
    """One finished episode's manifest entry, appended and synced as it finishes, so that a
    killed run's resume knows which written files are whole (a line cut by the kill is
    ignored, and its episode runs again)."""
    entry = record.summary()
    line = json.dumps({**entry, "line_sha256": seal(entry, "line_sha256")}, sort_keys=True)
    with open(Path(out) / PROGRESS, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def read_progress(out: Path) -> list[dict[str, Any]]:
    """The entries a killed run appended, each whole and intact (its own seal matches)."""
    path = Path(out) / PROGRESS
    if not path.exists():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("line_sha256") == seal(entry, "line_sha256"):
            entries.append({k: v for k, v in entry.items() if k != "line_sha256"})
    return entries


def clear_progress(out: Path) -> None:
    """The progress log, once the manifest holds what it said."""
    (Path(out) / PROGRESS).unlink(missing_ok=True)
