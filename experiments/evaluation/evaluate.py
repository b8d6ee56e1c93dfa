"""Evaluate a policy: run its episodes (serially or on Ray), keep the traces, score them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from experiments.evaluation.dispatch import Execution, episodes
from experiments.evaluation.run_folder import (
    agent_fields,
    append_progress,
    clear_progress,
    earlier_records,
    traces_entry,
    write_manifest,
)
from harness import (
    EpisodeRecord,
    Job,
    harness_hash,
    instrument_hash,
    read_traces,
    write_episode,
)
from harness.agents.registry import check_made
from harness.engine.episode import setup_for
from harness.engine.schema import TABLES, trace_names
from harness.engine.store import read_episode, sweep_orphans
from harness.engine.validation import load_checked
from policies import InputError, Policy
from scenarios import Scenario, resolve, suite_path, village
from scenarios.checks import DEFAULT, Bounds, cost_problem
from scorecards import (
    Scorecard,
    ScorecardDefinition,
    assemble,
    load_definition,
    measure,
    merge_values,
)
from villagelab.interruption import checkpoint
from villagelab.yamlsource import listing


class NoEpisodeFinished(InputError):
    """Every episode of an evaluation ended without traces (exit 2, each one's status said)."""


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
        bounds: Bounds = DEFAULT,
        suite: str | None = None,
    ) -> Instrument:
        """Scenarios by name or path; `village` is generated with `agents`, its structure
        seed and `hours`.
        Each is within `bounds`, its episodes' estimated cost too (refused up front, saying
        the estimate)."""
        if not names:
            raise InputError(
                "no scenario given; name one with --scenario (see 'villagelab scenario list')"
            )
        files = tuple(resolve(n) for n in names if n != "village")
        files += (suite_path(suite),) if suite else ()  # a suite's file measures too
        scenarios = []
        for n in names:
            if n == "village":
                if agents > bounds.agents:
                    raise InputError(
                        f"village: --agents {agents:,}; expected at most "
                        f"{bounds.agents:,}{bounds.hint}"
                    )
                scenario = village(agents, structure_seed, hours)
            else:
                scenario = load_checked(resolve(n), bounds)
            problem = cost_problem(scenario, bounds)
            if problem:
                raise InputError(f"{n if n == 'village' else resolve(n)}: {problem}")
            scenarios.append(scenario)
        seen = [s.name for s in scenarios]
        if len(set(seen)) != len(seen):
            raise InputError(f"a scenario is named twice: {', '.join(seen)}")
        return cls(
            tuple(scenarios),
            files,
            load_definition(definition) if definition else load_definition(),
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
    # the digest of each variant file of the prompt families the agent declares
    agent_prompts: dict[str, str] = field(default_factory=dict)
    repaired: list[tuple[str, int]] = field(default_factory=list)  # damaged, so run again
    written_at: str | None = None  # where the workers wrote the traces (a URI, or `out`)
    model: dict[str, str] = field(default_factory=dict)  # what the agent's factory told of it

    def load_traces(self) -> dict[str, pd.DataFrame]:
        """The traces: in hand, or read back from where the workers wrote them."""
        return self.traces if self.written_at is None else read_traces(self.written_at)

    @property
    def problems(self) -> list[EpisodeRecord]:
        return [r for r in self.records if r.status != "ok"]


def collect(records: Sequence[EpisodeRecord]) -> dict[str, pd.DataFrame]:
    """The traces of all successful episodes, one DataFrame per table."""
    out = {}
    ok = [r for r in records if r.status == "ok"]
    for name in trace_names(name for r in ok for name in r.tables):
        parts = [r.tables[name] for r in ok if name in r.tables]
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
    repair: bool = False,
) -> Evaluation:
    """Run every (scenario, seed) episode of a policy, write traces to `out` (or, with
    `execution.traces_uri`, have the workers write them there), and score them.

    With `out`, the run can be resumed: the same command again skips the episodes already
    written there — each file checked against the SHA-256 its manifest recorded — and runs
    the rest. A damaged file stops the run (`TraceDamaged`, exit 2) unless `repair`, which
    runs its episode again. `out` holding another run's traces is refused."""
    repaired: list[tuple[str, int]] = []
    agent = execution.choice()  # a bad --agent stops here, before anything runs
    first = instrument.scenarios[0]
    check_made(agent, setup_for(first, first.agents[0], policy, seeds[0] if seeds else 0))
    hashes = instrument.hashes(policy)
    run = {  # what made the folder, as its manifest says
        **hashes,
        "policy_values": dict(policy),
        **agent_fields(agent),
        "scenarios": [s.name for s in instrument.scenarios],
        "scenario_files": [str(f) for f in instrument.files],
        "metrics": {name: list(metrics) for name, metrics in instrument.applicable.items()},
        "seeds": list(seeds),
        "traces": traces_entry(execution.traces_uri),
        **agent.facts,
    }
    jobs = [Job(s, seed) for s in instrument.scenarios for seed in seeds]
    earlier: dict[tuple[str, int], EpisodeRecord] = {}
    if out is not None:
        earlier, damaged = earlier_records(out, jobs, hashes, execution, agent, instrument, repair)
        repaired.extend(damaged)
        sweep_orphans(out)  # temp files a killed run left behind; their episodes run again
        # what is known good so far; each episode that finishes is then appended to the log
        write_manifest(out, run, [earlier[j.key] for j in jobs if j.key in earlier], complete=False)
        clear_progress(out)

    def done(record: EpisodeRecord) -> EpisodeRecord:
        if out is not None and record.status == "ok" and record.stored_at is None:
            digests, sizes = write_episode(out, record.scenario, record.seed, record.tables)
            record = replace(record, digests=digests, sizes=sizes)
            checkpoint(f"episode {record.scenario}/{record.seed} written")
        if out is not None:
            append_progress(out, record)
        if on_done:
            on_done(record)
        return record

    written = set(earlier)
    for job in jobs:
        if job.key in written and on_done:
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
        records.append(earlier[job.key] if job.key in written else done(next(fresh)))
    if not any(r.status == "ok" for r in records):
        if out is not None:
            write_manifest(out, run, records, complete=True)
            clear_progress(out)
        raise NoEpisodeFinished(
            listing([f"episode {r.scenario}/{r.seed}: {r.status}: {r.error}" for r in records])
            + "\nno episode finished, so there is nothing to score"
        )
    if written_by_workers is None:
        traces = collect(records)
        # each episode measured from its own Arrow tables: what `score(traces)` gives, faster
        measured = [
            r.measured
            if r.measured is not None
            else measure(r.tables, instrument.definition, instrument.applicable)
            for r in records
            if r.status == "ok" and any(t.num_rows for t in r.tables.values())
        ]
    else:  # the traces stay where the workers wrote them; their values came back
        traces = {}
        measured = [_measured(r, out, instrument, execution) for r in records if r.status == "ok"]
    not_ok = [(r.scenario, r.seed, str(r.status)) for r in records if r.status != "ok"]
    card = assemble(merge_values(measured), instrument.definition, hashes=hashes, not_ok=not_ok)
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
        agent_prompts=agent.prompts,
        repaired=repaired,
        written_at=written_by_workers,
        model=agent.facts,
    )
    if out is not None:
        write_manifest(out, run, records, complete=True)
        clear_progress(out)
    return evaluation


def _measured(
    record: EpisodeRecord, out: Path | None, instrument: Instrument, execution: Execution
) -> Any:
    """What a worker measured of an episode; one found written by an earlier run and read
    back in full is measured here."""
    if record.measured is not None:
        return record.measured
    tables = record.tables
    if not tables:
        where = execution.traces_uri or out
        assert where is not None  # an episode read back came from a folder or a trace URI
        tables = read_episode(where, record.scenario, record.seed)
    return measure(tables, instrument.definition, instrument.applicable)
