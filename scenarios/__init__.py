"""Scenarios: the schema, the loader and the built-in library with its seed sets."""

from ._types import PlaceFact, Sense
from .clock import MINUTES_PER_DAY, clock_of, day_of, parse_clock, parse_moment, parse_span
from .generator import village, village_name
from .loader import LIBRARY, builtin_names, load_scenario, resolve
from .model import AgentSpec, DecisionPoint, Errand, Probe, Scenario, Truth, World, WorldEvent
from .suite import SUITE_PATH, SUITES, SeedSets, Suite, load_suite, parse_seeds, suite_path

__all__ = [
    "LIBRARY",
    "MINUTES_PER_DAY",
    "SUITES",
    "SUITE_PATH",
    "AgentSpec",
    "DecisionPoint",
    "Errand",
    "PlaceFact",
    "Probe",
    "Scenario",
    "SeedSets",
    "Sense",
    "Suite",
    "Truth",
    "World",
    "WorldEvent",
    "builtin_names",
    "clock_of",
    "day_of",
    "load_scenario",
    "load_suite",
    "parse_clock",
    "parse_moment",
    "parse_seeds",
    "parse_span",
    "resolve",
    "suite_path",
    "village",
    "village_name",
]
