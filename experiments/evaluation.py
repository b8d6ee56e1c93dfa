"""Evaluate a policy: run its episodes (serially or on Ray), keep the traces, score them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd
import pyarrow as pa

from harness import (
    TABLE_NAMES,
    EpisodeRecord,
    Job,
    harness_hash,
    instrument_hash,
    read_traces,
    run_serial,
    write_episode,
)
from harness.agents import agent_path
from harness.agents.registry import AgentChoice, check_made
from harness.agents.registry import resolve as resolve_agent
from harness.engine import plugins
from harness.engine.episode import setup_for
from harness.engine.runner import RayBatch
from harness.engine.schema import SCHEMA_VERSION, TABLES
from harness.engine.store import episode_written, read_episode, sweep_orphans
from harness.engine.validation import load_checked
from policies import InputError, Policy
from scenarios import Scenario, resolve, village
from scorecards import (
    Scorecard,
    ScorecardDefinition,
    assemble,
    load_definition,
    measure,
    merge_values,
    score,
)
from villagelab.files import atomic_write_json
from villagelab.safe_text import redact

from .measuring import measured_episode, measured_values


@dataclass(frozen=True)
class Execution:
    """Where episodes run: in this process, or as Ray tasks (local or on a cluster)."""

    serial: bool = False
    workers: int | None = None
    address: str | None = None
    timeout_s: float | None = None
    agent: str = "reference"  # which agent: a built-in name or module:Factory
    agent_options: str | None = None  # JSON for a factory that takes options (--llm-config)
    # a URI every worker can write and the driver read (file:// on a shared mount, s3://…):
    # workers write their episodes' traces there and send back only measured values
    traces_uri: str | None = None

    def choice(self) -> AgentChoice:
        """The agent, resolved and hashed here (a bad --agent stops before anything runs)."""
        options = json.loads(self.agent_options) if self.agent_options else None
        return resolve_agent(self.agent, options)


@dataclass(frozen=True)
class Instrument:
    """The scenarios and the scorecard definition that measure a policy."""

    scenarios: tuple[Scenario, ...]
    files: tuple[Path, ...]
    definition: ScorecardDefinition

    @classmethod
    def load(
        cls,
        names: Sequence[str],
        definition: Path | None = None,
        *,
        agents: int = 25,
        structure_seed: int = 0,
        hours: int = 48,
    ) -> Instrument:
        """Scenarios by name or path; `village` is generated with `agents`, its structure
        seed and `hours`."""
        if not names:
            raise InputError(
                "no scenario given; name one with --scenario (see 'villagelab scenario list')"
            )
        files = tuple(resolve(n) for n in names if n != "village")
        scenarios = tuple(
            village(agents, structure_seed, hours) if n == "village" else load_checked(resolve(n))
            for n in names
        )
        seen = [s.name for s in scenarios]
        if len(set(seen)) != len(seen):
            raise InputError(f"a scenario is named twice: {', '.join(seen)}")
        return cls(
            scenarios, files, load_definition(definition) if definition else load_definition()
        )

    @property
    def applicable(self) -> dict[str, tuple[str, ...]]:
        """Each scenario's declared metrics: only those are scored for it."""
        return {s.name: tuple(s.metrics) for s in self.scenarios}

    def hashes(self, policy: Policy) -> dict[str, str]:
        generated = [
            s.model_dump_json().encode() for s in self.scenarios if s.name.startswith("village_")
        ]
        return {
            "harness": harness_hash(),
            "instrument": instrument_hash(self.files, generated),
            "policy": policy.hash,
        }


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
    resumed: int = 0  # episodes found already written by an earlier run of the same command
    agent_path: str = ""  # the agent's import path
    agent_hash: str = ""  # the agent's code
    written_at: str | None = None  # where the workers wrote the traces (a URI, or `out`)

    def load_traces(self) -> dict[str, pd.DataFrame]:
        """The traces: in hand, or read back from where the workers wrote them."""
        return self.traces if self.written_at is None else read_traces(self.written_at)

    @property
    def problems(self) -> list[EpisodeRecord]:
        return [r for r in self.records if r.status != "ok"]


def collect(records: Sequence[EpisodeRecord]) -> dict[str, pd.DataFrame]:
    """The traces of all successful episodes, one DataFrame per table."""
    out = {}
    for name in TABLE_NAMES:
        parts = [r.tables[name] for r in records if r.status == "ok"]
        table = pa.concat_tables(parts) if parts else TABLES[name].empty_table()
        out[name] = table.to_pandas()
    return out


def evaluate(
    policy: Policy,
    instrument: Instrument,
    seeds: Sequence[int],
    execution: Execution,
    *,
    out: Path | None = None,
    on_done: Callable[[EpisodeRecord], None] | None = None,
) -> Evaluation:
    """Run every (scenario, seed) episode of a policy, write traces to `out` (or, with
    `execution.traces_uri`, have the workers write them there), and score them.

    With `out`, the run can be resumed: the same command again skips the episodes already
    written there and runs the rest. `out` holding another run's traces is refused."""
    agent = execution.choice()  # a bad --agent stops here, before anything runs
    first = instrument.scenarios[0]
    check_made(agent, setup_for(first, first.agents[0], policy, seeds[0] if seeds else 0))
    hashes = instrument.hashes(policy)
    jobs = [Job(s, seed) for s in instrument.scenarios for seed in seeds]
    written: set[tuple[str, int]] = set()
    if out is not None:
        written = _already_written(out, jobs, hashes, execution, agent)
        sweep_orphans(out)  # temp files a killed run left behind; their episodes run again
        _write_manifest(
            out, instrument, policy, hashes, execution, agent, seeds, [], complete=False
        )

    def done(record: EpisodeRecord) -> None:
        if out is not None and record.status == "ok" and record.stored_at is None:
            write_episode(out, record.scenario, record.seed, record.tables)
        if on_done:
            on_done(record)

    earlier = {}
    for job in jobs:
        if job.key in written:
            assert out is not None  # only a run with a folder has episodes written before
            earlier[job.key] = _written_record(out, job, instrument, execution)
            if on_done:
                on_done(earlier[job.key])
    remaining = [j for j in jobs if j.key not in written]
    # on a local cluster the workers share this disk: each writes and scores its own episode,
    # so the driver neither receives nor writes tables (on a user's cluster they come back)
    local_workers = not execution.serial and execution.address is None and out is not None
    written_by_workers = execution.traces_uri or (str(out) if local_workers else None)
    fresh = (
        episodes(remaining, policy, instrument, execution, traces_uri=written_by_workers)
        if remaining
        else iter(())
    )
    records = []
    for job in jobs:
        record = earlier[job.key] if job.key in written else next(fresh)
        if job.key not in written:
            done(record)
        records.append(record)
    if not any(r.status == "ok" for r in records):  # nothing to score: say why, no traceback
        if out is not None:
            _write_manifest(
                out, instrument, policy, hashes, execution, agent, seeds, records, complete=True
            )
        raise InputError(
            "no episode ended ok, so there is nothing to score:\n"
            + "\n".join(f"  {r.scenario}/{r.seed}: {r.status}: {r.error}" for r in records)
        )
    if written_by_workers is None:
        traces = collect(records)
        card = score(traces, instrument.definition, hashes=hashes, applicable=instrument.applicable)
    else:  # the traces stay where the workers wrote them; their values came back
        traces = {}
        measured = [
            measured_values(r, execution.traces_uri or out, instrument)
            for r in records
            if r.status == "ok"
        ]
        card = assemble(merge_values(measured), instrument.definition, hashes=hashes)
    evaluation = Evaluation(
        policy,
        tuple(seeds),
        records,
        card,
        hashes,
        traces,
        execution.agent,
        execution.traces_uri,
        resumed=len(written),
        agent_path=agent.path,
        agent_hash=agent.hash,
        written_at=written_by_workers,
    )
    if out is not None:
        _write_manifest(
            out, instrument, policy, hashes, execution, agent, seeds, records, complete=True
        )
    return evaluation


def _agent_fields(agent: AgentChoice) -> dict[str, str]:
    """How a manifest (or a baseline) names the agent that made it."""
    return {"agent": agent.name, "agent_path": agent.path, "agent_hash": agent.hash}


def _already_written(
    out: Path, jobs: list[Job], hashes: dict[str, str], execution: Execution, agent: AgentChoice
) -> set[tuple[str, int]]:
    """The episodes a previous run of the same policy, harness, instrument and agent left
    complete in `out` (or at its trace URI). Another run's traces are never mixed in."""
    manifest = Path(out) / "manifest.json"
    if not manifest.exists():
        return set()
    try:
        prior = json.loads(manifest.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"{manifest}: unreadable ({exc}); give a new --out or remove it") from None
    made_by = {
        **hashes,
        **_agent_fields(agent),
        "traces": _traces_entry(execution),
    }
    differ = [k for k, v in made_by.items() if prior.get(k) != v]
    if differ:
        raise InputError(
            f"{out}: holds the traces of another run ({', '.join(differ)} "
            "not this run's); give a new --out, or remove the folder to start "
            "afresh"
        )
    root = execution.traces_uri or out
    return {job.key for job in jobs if episode_written(root, *job.key)}


def _written_record(
    out: Path, job: Job, instrument: Instrument, execution: Execution
) -> EpisodeRecord:
    """An episode already written: its tables read back (and, for a trace URI, measured here
    as a worker would have)."""
    root = execution.traces_uri or out
    record = EpisodeRecord(job.scenario.name, job.seed, "ok", None, read_episode(root, *job.key))
    if execution.traces_uri is not None:
        tables = {k: v.to_pandas() for k, v in record.tables.items()}
        measured = measure(tables, instrument.definition, instrument.applicable)
        record = replace(record, measured=measured, tables={}, stored_at=execution.traces_uri)
    return record


def episodes(
    jobs: list[Job],
    policy: Policy,
    instrument: Instrument,
    execution: Execution,
    *,
    measured: bool = False,
    traces_uri: str | None = None,
) -> Iterator[EpisodeRecord]:
    """The jobs' episodes in job order, serially or as Ray tasks. `measured`: each is scored
    where it ran (`record.measured`); a `traces_uri` (which implies it) has the worker write
    the traces there and send none back."""
    measured = measured or traces_uri is not None
    # the workers import the agent by this path (with its options, if it takes any)
    agent = plugins.configured(
        agent_path(execution.agent), json.loads(execution.agent_options or "null")
    )
    if not measured:
        if execution.serial:
            return run_serial(jobs, policy, agent)
        return iter(
            RayBatch(
                jobs,
                policy,
                workers=execution.workers,
                address=execution.address,
                timeout_s=execution.timeout_s,
                agent=agent,
            )
        )
    extra = (instrument.definition, instrument.applicable, traces_uri)
    if execution.serial:
        return (measured_episode(j.scenario, dict(policy), j.seed, agent, *extra) for j in jobs)
    return iter(
        RayBatch(
            jobs,
            policy,
            workers=execution.workers,
            address=execution.address,
            timeout_s=execution.timeout_s,
            agent=agent,
            function=measured_episode,
            extra=extra,
        )
    )


def _write_manifest(
    out: Path,
    instrument: Instrument,
    policy: Policy,
    hashes: dict[str, str],
    execution: Execution,
    agent: AgentChoice,
    seeds: Sequence[int],
    records: list[EpisodeRecord],
    *,
    complete: bool,
) -> None:
    """What a trace folder holds and what made it: hashes, policy, episodes and their status.
    Written first with `complete: false`, so that an interrupted run can be recognised and
    resumed, and again at the end."""
    atomic_write_json(
        Path(out) / "manifest.json",
        {
            "schema_version": SCHEMA_VERSION,
            **hashes,
            "policy_values": dict(policy),
            **_agent_fields(agent),
            "scenarios": [s.name for s in instrument.scenarios],
            "scenario_files": [str(f) for f in instrument.files],
            "metrics": {name: list(metrics) for name, metrics in instrument.applicable.items()},
            "seeds": list(seeds),
            "episodes": [r.summary() for r in records],
            "traces": _traces_entry(execution),
            "complete": complete,
        },
    )


def _traces_entry(execution: Execution) -> str:
    """Where a manifest says the traces are: beside it, or the URI (credentials masked: a
    manifest is a file others read; `score` needs the URI again on its command line)."""
    return "traces" if execution.traces_uri is None else redact(execution.traces_uri)
