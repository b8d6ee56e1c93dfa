"""`villagelab bench`: throughput figures for notes and regressions (never asserted in tests)."""

from __future__ import annotations

import cProfile
import io
import pstats
import time
from collections.abc import Iterator

from harness import Episode
from harness.agents import AGENT_KINDS
from policies import Policy, load_policy
from scenarios import builtin_names, load_scenario, village


def _policy() -> Policy:
    from pathlib import Path

    return load_policy(Path(__file__).resolve().parent.parent / "policies" / "careful.yaml")


REFERENCE = AGENT_KINDS["reference"]


def episode_rates(seeds: int = 3, agent: str = REFERENCE) -> Iterator[tuple[str, float, float]]:
    """(scenario, seconds per episode, agent-ticks per second) for each built-in scenario."""
    policy = _policy()
    for name in builtin_names():
        scenario = load_scenario(name)
        ticks = scenario.duration // scenario.tick_minutes + 1
        began = time.perf_counter()
        for seed in range(seeds):
            Episode(scenario, policy, seed, agent).run()
        seconds = (time.perf_counter() - began) / seeds
        yield name, seconds, len(scenario.agents) * ticks / seconds


def village_rate(
    agents: int = 25,
    hours: int = 24,
    profile: bool = False,
    lazy: bool = True,
    agent: str = REFERENCE,
) -> tuple[float, str]:
    """Agent-ticks per second on a generated village, and optionally where the time goes.

    `lazy=False` asks every agent every tick (time composition off), for comparison.
    """
    scenario = village(agents, 0, hours=hours)
    ticks = scenario.duration // scenario.tick_minutes + 1
    episode = Episode(scenario, _policy(), 0, agent, lazy=lazy)
    profiler = cProfile.Profile() if profile else None
    began = time.perf_counter()
    if profiler:
        profiler.enable()
    episode.run()
    if profiler:
        profiler.disable()
    seconds = time.perf_counter() - began
    report = ""
    if profiler:
        buffer = io.StringIO()
        pstats.Stats(profiler, stream=buffer).sort_stats("tottime").print_stats(12)
        report = buffer.getvalue()
    return agents * ticks / seconds, report
