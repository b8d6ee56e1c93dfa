"""Evaluate a policy: run its episodes (serially or on Ray), keep the traces, score them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa

from harness import (
    TABLE_NAMES,
    EpisodeRecord,
    Job,
    atomic_write_json,
    harness_hash,
    instrument_hash,
    read_traces,
    run_ray,
    run_serial,
    write_episode,
)
from harness.runner import RayBatch
from harness.schema import SCHEMA_VERSION, TABLES
from harness.store import sweep_orphans
from policies import InputError, Policy
from scenarios import Scenario, load_scenario, resolve, village
from scorecards import (
    Scorecard,
    ScorecardDefinition,
    assemble,
    load_definition,
    measure,
    merge_values,
    score,
)


@dataclass(frozen=True)
class Execution:
    """Where episodes run: in this process, or as Ray tasks (local or on a cluster)."""

    serial: bool = False
    workers: int | None = None
    address: str | None = None
    timeout_s: float | None = None
    agent: str = "reference"  # which agent implementation (harness.AGENT_KINDS)
    # a URI every worker can write and the driver read (file:// on a shared mount, s3://…):
    # workers write their episodes' traces there and send back only measured values
    traces_uri: str | None = None


@dataclass(frozen=True)
class Instrument:
    """The scenarios and the scorecard definition that measure a policy."""

    scenarios: tuple[Scenario, ...]
    files: tuple[Path, ...]
    definition: ScorecardDefinition

    @classmethod
    def load(cls, names: Sequence[str], definition: Path | None = None, *,
             agents: int = 25, structure_seed: int = 0) -> Instrument:
        """Scenarios by name or path; `village` is generated with `agents` and its seed."""
        if not names:
            raise InputError("no scenario given; name one with --scenario (see "
                             "'villagelab scenario list')")
        files = tuple(resolve(n) for n in names if n != "village")
        scenarios = tuple(village(agents, structure_seed) if n == "village"
                          else load_scenario(resolve(n)) for n in names)
        seen = [s.name for s in scenarios]
        if len(set(seen)) != len(seen):
            raise InputError(f"a scenario is named twice: {', '.join(seen)}")
        return cls(scenarios, files, load_definition(definition) if definition else
                   load_definition())

    @property
    def applicable(self) -> dict[str, tuple[str, ...]]:
        """Each scenario's declared metrics: only those are scored for it."""
        return {s.name: tuple(s.metrics) for s in self.scenarios}

    def hashes(self, policy: Policy) -> dict[str, str]:
        generated = [s.model_dump_json().encode() for s in self.scenarios
                     if s.name.startswith("village_")]
        return {"harness": harness_hash(), "instrument": instrument_hash(self.files, generated),
                "policy": policy.hash}


@dataclass
class Evaluation:
    policy: Policy
    seeds: tuple[int, ...]
    records: list[EpisodeRecord]
    scorecard: Scorecard
    hashes: dict[str, str]
    traces: dict[str, pd.DataFrame] = field(repr=False, default_factory=dict)
    agent: str = "reference"
    traces_uri: str | None = None  # where the workers wrote the traces, if not to `out`

    def load_traces(self) -> dict[str, pd.DataFrame]:
        """The traces: in hand, or read back from the shared URI the workers wrote to."""
        return self.traces if self.traces_uri is None else read_traces(self.traces_uri)

    @property
    def problems(self) -> list[EpisodeRecord]:
        return [r for r in self.records if r.status != "ok"]


def measured_episode(scenario: Scenario, values: dict, seed: int, agent_kind: str,
                     definition: ScorecardDefinition, applicable: dict[str, tuple[str, ...]],
                     traces_uri: str | None = None) -> EpisodeRecord:
    """Run one episode and measure its metrics where it ran (a Ray worker), so the driver
    only merges numbers; given a shared trace URI, write the traces there too and send
    none back. A metric or a write that fails is a crashed episode, like any other."""
    from harness.runner import _execute

    record = _execute(scenario, values, seed, agent_kind)
    if record.status != "ok":
        return record
    step = "scoring"
    try:
        tables = {k: v.to_pandas() for k, v in record.tables.items()}
        record.measured = measure(tables, definition, applicable)
        if traces_uri is not None:
            step = f"writing traces to {traces_uri}"
            write_episode(traces_uri, scenario.name, seed, record.tables)
            record.tables, record.stored_at = {}, traces_uri
    except Exception as exc:  # recorded, never silently dropped
        record.status, record.error = "crashed", f"{step}: {type(exc).__name__}: {exc}"
    return record


def collect(records: Sequence[EpisodeRecord]) -> dict[str, pd.DataFrame]:
    """The traces of all successful episodes, one DataFrame per table."""
    out = {}
    for name in TABLE_NAMES:
        parts = [r.tables[name] for r in records if r.status == "ok"]
        table = pa.concat_tables(parts) if parts else TABLES[name].empty_table()
        out[name] = table.to_pandas()
    return out


def evaluate(policy: Policy, instrument: Instrument, seeds: Sequence[int], execution: Execution,
             *, out: Path | None = None,
             on_done: Callable[[EpisodeRecord], None] | None = None) -> Evaluation:
    """Run every (scenario, seed) episode of a policy, write traces to `out` (or, with
    `execution.traces_uri`, have the workers write them there), and score them."""
    jobs = [Job(s, seed) for s in instrument.scenarios for seed in seeds]
    if out is not None:
        sweep_orphans(out)  # temp files a killed run left behind; their episodes run again

    def done(record: EpisodeRecord) -> None:
        if out is not None and record.status == "ok" and record.stored_at is None:
            write_episode(out, record.scenario, record.seed, record.tables)
        if on_done:
            on_done(record)

    records = list(_episodes(jobs, policy, instrument, execution, done))
    hashes = instrument.hashes(policy)
    if execution.traces_uri is None:
        traces = collect(records)
        card = score(traces, instrument.definition, hashes=hashes,
                     applicable=instrument.applicable)
    else:  # the traces stay where the workers wrote them; their values came back
        traces = {}
        measured = [r.measured for r in records if r.status == "ok"]
        card = assemble(merge_values(measured), instrument.definition, hashes=hashes)
    evaluation = Evaluation(policy, tuple(seeds), records, card, hashes, traces, execution.agent,
                            execution.traces_uri)
    if out is not None:
        write_manifest(out, evaluation, instrument)
    return evaluation


def _episodes(jobs: list[Job], policy: Policy, instrument: Instrument, execution: Execution,
              done: Callable[[EpisodeRecord], None]) -> Iterator[EpisodeRecord]:
    if execution.traces_uri is None and execution.serial:
        yield from run_serial(jobs, policy, on_done=done, agent_kind=execution.agent)
        return
    if execution.traces_uri is None:
        yield from run_ray(jobs, policy, workers=execution.workers, address=execution.address,
                           timeout_s=execution.timeout_s, on_done=done,
                           agent_kind=execution.agent)
        return
    extra = (instrument.definition, instrument.applicable, execution.traces_uri)
    if execution.serial:
        stream: Iterable[EpisodeRecord] = (
            measured_episode(j.scenario, dict(policy), j.seed, execution.agent, *extra)
            for j in jobs)
    else:
        stream = RayBatch(jobs, policy, workers=execution.workers, address=execution.address,
                          timeout_s=execution.timeout_s, agent_kind=execution.agent,
                          function=measured_episode, extra=extra)
    for record in stream:
        done(record)
        yield record


def write_manifest(out: Path, evaluation: Evaluation, instrument: Instrument) -> None:
    """What a trace folder holds and what made it: hashes, policy, episodes and their status."""
    atomic_write_json(Path(out) / "manifest.json", {
        "schema_version": SCHEMA_VERSION,
        **evaluation.hashes,
        "policy_values": dict(evaluation.policy),
        "agent": evaluation.agent,
        "scenarios": [s.name for s in instrument.scenarios],
        "scenario_files": [str(f) for f in instrument.files],
        "metrics": {name: list(metrics) for name, metrics in instrument.applicable.items()},
        "seeds": list(evaluation.seeds),
        "episodes": [r.summary() for r in evaluation.records],
        "traces": evaluation.traces_uri or "traces",
    })
