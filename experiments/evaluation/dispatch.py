"""Where a policy's episodes run: in this process or as Ray tasks, each scored where it ran
when asked (a worker then sends back numbers, and with a shared trace URI no tables)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Protocol

from harness import EpisodeRecord, Job, run_serial, write_episode
from harness.agents import agent_path
from harness.agents.registry import AgentChoice
from harness.agents.registry import resolve as resolve_agent
from harness.engine import plugins
from harness.engine.budget import Budget
from harness.engine.runner import RayBatch
from policies import Policy
from scenarios import Scenario
from scorecards import ScorecardDefinition, measure


class Measures(Protocol):
    """What scores an episode where it ran (an evaluation's `Instrument`)."""

    @property
    def definition(self) -> ScorecardDefinition: ...

    @property
    def applicable(self) -> dict[str, tuple[str, ...]]: ...


@dataclass(frozen=True)
class Execution:
    """Where episodes run: in this process, or as Ray tasks (local or on a cluster)."""

    serial: bool = False
    workers: int | None = None
    address: str | None = None
    # each episode's wall clock and memory: past them it ends timed_out or out_of_memory
    budget: Budget = field(default_factory=Budget)
    agent: str = "reference"  # which agent: a built-in name or module:Factory
    agent_options: str | None = None  # JSON for a factory that takes options (--llm-config)
    # a URI every worker can write and the driver read (file:// on a shared mount, s3://…):
    # workers write their episodes' traces there and send back only measured values
    traces_uri: str | None = None

    def choice(self) -> AgentChoice:
        """The agent, resolved and hashed here (a bad --agent stops before anything runs);
        resolved once for this execution (a plug-in is looked at in a process of its own)."""
        return self._chosen

    @cached_property
    def _chosen(self) -> AgentChoice:
        options = json.loads(self.agent_options) if self.agent_options else None
        return resolve_agent(self.agent, options)


def measured_episode(
    scenario: Scenario,
    policy: Policy,
    seed: int,
    agent: str,
    definition: ScorecardDefinition,
    applicable: dict[str, tuple[str, ...]],
    traces_uri: str | None = None,
    budget: Budget | None = None,
) -> EpisodeRecord:
    """Run one episode and measure its metrics where it ran (a Ray worker), so the driver
    only merges numbers; given a shared trace URI, write the traces there too and send
    none back. A metric or a write that fails is a crashed episode, like any other."""
    from harness.engine.runner import _execute

    record = _execute(scenario, policy, seed, agent, budget)
    if record.status != "ok":
        return record
    step = "scoring"
    try:
        began = time.perf_counter()
        # Arrow as written: a metric converts only what it reads (most read none)
        values = measure(record.tables, definition, applicable)
        seconds = {**record.seconds, "scoring": time.perf_counter() - began}
        record = replace(record, measured=values, seconds=seconds)
        if traces_uri is not None:
            step = f"writing traces to {traces_uri}"
            digests, sizes = write_episode(traces_uri, scenario.name, seed, record.tables)
            record = replace(record, tables={}, stored_at=traces_uri, digests=digests, sizes=sizes)
    except Exception as exc:  # noqa: BLE001 - recorded, never silently dropped
        record = record.crashed(f"{step}: {type(exc).__name__}: {exc}")
    return record


def agent_reference(execution: Execution) -> str:
    """The import path the workers load the agent by, with its options if it takes any
    (looking a name up reads every installed package's entry points: ~4 ms)."""
    return plugins.configured(
        agent_path(execution.agent), json.loads(execution.agent_options or "null")
    )


def episodes(
    jobs: list[Job],
    policy: Policy,
    instrument: Measures,
    execution: Execution,
    *,
    measured: bool = False,
    traces_uri: str | None = None,
    agent: str | None = None,
) -> Iterator[EpisodeRecord]:
    """The jobs' episodes in job order, serially or as Ray tasks. `measured`: each is scored
    where it ran (`record.measured`); a `traces_uri` (which implies it) has the worker write
    the traces there and send none back. `agent`: `agent_reference(execution)`, if already
    known."""
    measured = measured or traces_uri is not None
    agent = agent or agent_reference(execution)
    extra: tuple[Any, ...] = (
        (instrument.definition, instrument.applicable, traces_uri) if measured else ()
    )
    if execution.serial:
        if not measured:
            serial: Iterator[EpisodeRecord] = run_serial(
                jobs, policy, agent, budget=execution.budget
            )
            return serial
        definition, applicable = instrument.definition, instrument.applicable
        return (
            measured_episode(
                j.scenario,
                policy,
                j.seed,
                agent,
                definition,
                applicable,
                traces_uri,
                budget=execution.budget,
            )
            for j in jobs
        )
    return iter(
        RayBatch(
            jobs,
            policy,
            workers=execution.workers,
            address=execution.address,
            budget=execution.budget,
            agent=agent,
            function=measured_episode if measured else None,
            extra=extra,
        )
    )
