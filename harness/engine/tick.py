"""What the parts of one episode's tick loop share (`Episode` composes them): the scenario,
its recorder and draws, the agents with their specs and the tracked propositions' meanings,
and the episode's own ways to number an event, hand an agent an observation and record the
diagnostics it drained."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from scenarios import AgentSpec, Scenario

from .contract import Agent, Meaning, Observation
from .recorder import Recorder
from .rng import Draws


@dataclass(frozen=True, slots=True)
class Tick:
    scenario: Scenario
    rec: Recorder
    draws: Draws
    agents: Mapping[str, Agent]
    specs: Mapping[str, AgentSpec]
    meanings: Mapping[str, Meaning]
    new_event: Callable[[], int]  # the next event id
    deliver: Callable[[str, Observation], None]  # recorded, exposures too; wakes the agent
    drain: Callable[[str], None]  # the agent's diagnostic rows into their tables
