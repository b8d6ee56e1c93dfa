"""Episodes of the companion suite, run once per test session and shared (they are
deterministic), and the dumb agents that show what the scorecard would say of them."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

from harness.engine.contract import Answer, Claim, Meaning
from harness.engine.episode import Episode
from policies import Policy, load_policy
from scenarios import load_scenario
from scorecards.metrics import METRICS
from scorecards.metrics._base import EpisodeTables

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = "harness.agents.reference:reference_agent"


def policy(name: str, values: dict[str, Any] | None = None) -> Policy:
    base = load_policy(ROOT / "policies" / f"{name}.yaml")
    return base.with_values(values) if values else base


@cache
def _run(scenario: str, policy_name: str, seed: int, agent: str, values: tuple) -> dict:
    p = policy(policy_name, dict(values))
    tables = Episode(load_scenario(scenario), p, seed, agent).run()
    return {k: v.to_pandas() for k, v in tables.items()}


def traces(
    scenario: str,
    policy_name: str = "careful",
    seed: int = 0,
    agent: str = REFERENCE,
    values: dict[str, Any] | None = None,
) -> dict[str, pd.DataFrame]:
    """A copy of one episode's traces (a test may plant a fault in it)."""
    got = _run(scenario, policy_name, seed, agent, tuple(sorted((values or {}).items())))
    return {k: v.copy() for k, v in got.items()}


def measure(tables: dict[str, pd.DataFrame], metric: str) -> float | None:
    return METRICS[metric].evaluate(EpisodeTables(tables))


def mean(scenario: str, metric: str, seeds=range(3), **kwargs: Any) -> float:
    values = [measure(traces(scenario, seed=s, **kwargs), metric) for s in seeds]
    return sum(values) / len(values)  # type: ignore[arg-type]


# --- dumb characters: would the scenarios still pass if the agent were dumb? --------------
class _Dumb:
    """Says `reply(text)` to every line and never speaks first; remembers nothing."""

    def __init__(self, setup: Any) -> None:
        self.name = setup.name
        self.spec = setup.spec
        self.pending: dict[str, list[str]] = {}

    def reply(self, text: str) -> str:
        return "ok"

    def observe(self, obs: Any) -> None:
        if obs.kind == "line":
            self.pending.setdefault(obs.speaker, []).append(self.reply(obs.detail or ""))

    def decide(self, now: int) -> list:
        return []

    def converse(self, partner: str, groups: tuple, now: int) -> list[Claim]:
        said = self.pending.pop(partner, [])
        return [Claim(Meaning("", "", "", ""), "", "certain", "self", text=t) for t in said]

    def answer(self, proposition: str, now: int) -> Answer:
        return Answer(None, None, None)

    def get_state(self) -> dict:
        return {"pending": self.pending}

    def set_state(self, state: dict) -> None:
        self.pending = {k: list(v) for k, v in state["pending"].items()}

    def drain_diagnostics(self) -> list:
        return []

    def wake_at(self, now: int) -> int:
        return now + 60


class Alarmist(_Dumb):
    """Answers everything with a safety script (a filter turned all the way up)."""

    def reply(self, text: str) -> str:
        return "Are you safe right now? Is someone with you? Please call 12356 or 120 now."


OKAY = "tests.companion.companion_runs:_Dumb"
ALARMIST = "tests.companion.companion_runs:Alarmist"
