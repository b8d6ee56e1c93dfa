"""Measuring an episode where it ran (a Ray worker, or this process in a serial run): its
metrics, its timing, and — given a location every worker can write — its traces, so the
driver merges numbers instead of receiving tables."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness import EpisodeRecord, write_episode
from harness.engine.store import read_episode
from scenarios import Scenario
from scorecards import ScorecardDefinition, measure


def measured_episode(
    scenario: Scenario,
    values: dict,
    seed: int,
    agent: str,
    definition: ScorecardDefinition,
    applicable: dict[str, tuple[str, ...]],
    traces_uri: str | None = None,
) -> EpisodeRecord:
    """Run one episode and measure its metrics where it ran (a Ray worker), so the driver
    only merges numbers; given a shared trace URI, write the traces there too and send
    none back. A metric or a write that fails is a crashed episode, like any other."""
    from harness.engine.runner import _execute

    record = _execute(scenario, values, seed, agent)
    if record.status != "ok":
        return record
    step = "scoring"
    try:
        began = time.perf_counter()
        tables = {k: v.to_pandas() for k, v in record.tables.items()}
        values = measure(tables, definition, applicable)
        seconds = {**record.seconds, "scoring": time.perf_counter() - began}
        record = replace(record, measured=values, seconds=seconds)
        if traces_uri is not None:
            step = f"writing traces to {traces_uri}"
            write_episode(traces_uri, scenario.name, seed, record.tables)
            record = replace(record, tables={}, stored_at=traces_uri)
    except Exception as exc:  # noqa: BLE001 - recorded, never silently dropped
        record = record.crashed(f"{step}: {type(exc).__name__}: {exc}")
    return record


def measured_values(record: EpisodeRecord, root: str | Path | None, instrument: Any) -> Any:
    """What a worker measured of an episode; one found written by an earlier run (under
    `root`) and read back in full is measured here."""
    if record.measured is not None:
        return record.measured
    assert root is not None  # an episode read back was read from somewhere
    tables = record.tables or read_episode(root, record.scenario, record.seed)
    frames = {k: v.to_pandas() for k, v in tables.items()}
    return measure(frames, instrument.definition, instrument.applicable)
