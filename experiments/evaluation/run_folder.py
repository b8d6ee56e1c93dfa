"""The run folder `villagelab run --out DIR` writes: its manifest (what made it, each episode's
status and trace files' SHA-256), written first with `complete: false` so an interrupted run
can be recognised and resumed, and again as episodes finish and at the end."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from experiments.evaluation.manifest import MANIFEST_BYTES, sealed_manifest
from harness import EpisodeRecord, Job
from harness.agents.registry import AgentChoice
from harness.engine.integrity import KEYED, TraceDamaged, keyed_problem, keyed_seal, seal
from harness.engine.schema import SCHEMA_VERSION
from harness.engine.store import read_episode
from policies import InputError
from villagelab import bounded_json
from villagelab.files import atomic_write_json
from villagelab.safe_text import redact
from villagelab.yamlsource import read_regular


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
    document[KEYED] = keyed_seal(document)
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
    entry[KEYED] = keyed_seal(entry)
    line = json.dumps({**entry, "line_sha256": seal(entry, "line_sha256")}, sort_keys=True)
    with open(Path(out) / PROGRESS, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def read_progress(out: Path) -> list[dict[str, Any]]:
    """The entries a killed run appended, each whole, intact and sealed with this user's key
    (its own checksum and keyed seal match; any other line is ignored: its episode runs
    again). The log is a regular file in the folder, of bounded size."""
    path = Path(out) / PROGRESS
    if not path.exists():
        return []
    data = read_regular(path, MANIFEST_BYTES, inside=Path(out))
    entries = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            entry = bounded_json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(entry, dict)
            and entry.get("line_sha256") == seal(entry, "line_sha256")
            and keyed_problem({k: v for k, v in entry.items() if k != "line_sha256"}) is None
        ):
            entries.append({k: v for k, v in entry.items() if k not in ("line_sha256", KEYED)})
    return entries


def clear_progress(out: Path) -> None:
    """The progress log, once the manifest holds what it said."""
    (Path(out) / PROGRESS).unlink(missing_ok=True)


def earlier_records(
    out: Path,
    jobs: list[Job],
    hashes: dict[str, str],
    execution: Any,
    agent: AgentChoice,
    instrument: Any,
    repair: bool,
) -> tuple[dict[tuple[str, int], EpisodeRecord], list[tuple[str, int]]]:
    """The episodes a previous run of the same policy, harness, instrument and agent left
    complete in `out` (or at its trace URI), each file checked against the SHA-256 the run
    recorded; and, with `repair`, the damaged ones (to run again). Another run's traces are
    never mixed in; a written file with no recorded digest (a kill came between) runs again."""
    manifest = Path(out) / "manifest.json"
    if not manifest.exists():
        return {}, []
    try:
        prior = sealed_manifest(manifest)
    except InputError:
        if not repair:
            raise
        try:  # a broken seal: each entry is still checked against the file it names
            prior = bounded_json.loads(
                read_regular(manifest, MANIFEST_BYTES, inside=Path(out)).decode("utf-8")
            )
        except (InputError, ValueError):
            prior = None
    if not isinstance(prior, dict):  # nothing to go by: every episode runs again
        return {}, [j.key for j in jobs]
    made_by = {
        **hashes,
        **agent_fields(agent),
        "traces": traces_entry(execution.traces_uri),
    }
    differ = [k for k, v in made_by.items() if prior.get(k) != v]
    if differ:
        raise InputError(
            f"{out}: holds the traces of another run ({', '.join(differ)} "
            "not this run's); give a new --out, or remove the folder to start "
            "afresh"
        )
    recorded: dict[tuple[str, int], dict[str, str]] = {}
    sizes: dict[tuple[str, int], dict[str, int]] = {}
    entries = prior.get("episodes")
    for entry in [*(entries if isinstance(entries, list) else []), *read_progress(out)]:
        try:
            key = (str(entry["scenario"]), int(entry["seed"]))
            if entry["status"] == "ok" and isinstance(entry["sha256"], dict):
                recorded[key] = {str(k): str(v) for k, v in entry["sha256"].items()}
                sizes[key] = {str(k): int(v) for k, v in entry.get("bytes", {}).items()}
        except (KeyError, TypeError, ValueError, AttributeError):
            continue  # an entry that says nothing usable: its episode runs again
    earlier, damaged = {}, []
    for job in jobs:
        if job.key not in recorded:
            continue
        try:
            earlier[job.key] = written_record(
                out, job, instrument, execution, recorded[job.key], sizes.get(job.key) or None
            )
        except TraceDamaged:
            if not repair:
                raise
            damaged.append(job.key)
    return earlier, damaged


def written_record(
    out: Path,
    job: Job,
    instrument: Any,
    execution: Any,
    digests: dict[str, str],
    sizes: dict[str, int] | None = None,
) -> EpisodeRecord:
    """An episode already written: its tables read back and checked against their sizes and
    digests (and, for a trace URI, measured here as a worker would have)."""
    root = execution.traces_uri or out
    tables = read_episode(root, job.scenario.name, job.seed, digests, sizes)
    record = EpisodeRecord(
        job.scenario.name, job.seed, "ok", None, tables, digests=digests, sizes=sizes or {}
    )
    if execution.traces_uri is not None:
        from scorecards import measure

        measured = measure(record.tables, instrument.definition, instrument.applicable)
        record = replace(record, measured=measured, tables={}, stored_at=execution.traces_uri)
    return record
