"""What each metric reads: declared (`Metric.reads`), held to what it does read, and no weight
on a metric that reads what agents report about themselves (design §5, no self-report)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from harness.agents.llm.accounting import ModelCall
from harness.agents.reference.companion.lessons import LessonNote
from harness.engine.diagnostics import row_types
from harness.engine.episode import Episode
from harness.engine.schema import AGENT_TABLES, TABLES, agent_reported
from policies import load_policy
from scenarios import builtin_names, load_scenario
from scorecards import METRICS, load_definition
from scorecards.metrics._base import HARNESS_ROWS, EpisodeTables
from villagelab.yamlsource import InputError

ROOT = Path(__file__).resolve().parents[2]


class Watched(EpisodeTables):
    """An episode's tables that note every table a metric asks for."""

    def __init__(self, tables: dict, seen: set[str]) -> None:
        super().__init__(tables)
        self.seen = seen

    def __getitem__(self, name: str):  # type: ignore[no-untyped-def]
        self.seen.add(name)
        return super().__getitem__(name)

    def __contains__(self, name: object) -> bool:
        self.seen.add(str(name))
        return name in self.sources

    def get(self, name: str, default=None):  # type: ignore[no-untyped-def]
        self.seen.add(name)
        return super().__getitem__(name) if name in self.sources else default

    def arrow(self, name: str):  # type: ignore[no-untyped-def]
        self.seen.add(name)
        return super().arrow(name)


@pytest.fixture(scope="module")
def episodes() -> list[dict]:
    """One episode of every built-in scenario (careful, seed 0)."""
    policy = load_policy(ROOT / "policies" / "careful.yaml")
    agent = "harness.agents.reference:reference_agent"
    return [Episode(load_scenario(n), policy, 0, agent).run() for n in builtin_names()]


def test_every_metric_reads_only_the_tables_it_declares(episodes: list[dict]) -> None:
    read: dict[str, set[str]] = defaultdict(set)
    for tables in episodes:
        for metric in METRICS.values():
            metric.fn(Watched(tables, read[metric.name]))
    for metric in METRICS.values():
        declared = {HARNESS_ROWS.get(t, t) for t in metric.reads}
        assert read[metric.name] <= declared, metric.name
        assert read[metric.name], f"{metric.name} read nothing on the whole library"


def test_the_agent_reported_tables_are_the_diagnostic_rows_tables() -> None:
    # the engine's own row types write its internal tables; those our agent packages register
    # beside their code write tables they declare, which the engine does not name
    assert {ModelCall, LessonNote} <= set(row_types())
    written = {kind.table for kind in row_types()}
    assert {"llm_calls", "lessons"} <= written and not {"llm_calls", "lessons"} & set(TABLES)
    assert {t for t in written if t in TABLES} == set(AGENT_TABLES)
    assert all(agent_reported(t) for t in written)
    assert not any(agent_reported(t) for t in set(TABLES) - set(AGENT_TABLES))


def test_no_weighted_metric_reads_what_agents_report_of_themselves() -> None:
    definition = load_definition()
    weighted = [m for m in METRICS.values() if definition.weights.get(m.name, 0.0) > 0]
    assert weighted
    assert [m.name for m in weighted if m.self_reported] == []
    assert METRICS["memory_noise"].self_reported  # the one that once weighed


def test_the_loader_refuses_weight_on_a_self_reported_metric(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = (ROOT / "scorecards" / "default.yaml").read_text()
    changed = text.replace("  memory_noise: 0.0", "  memory_noise: 1.0", 1)
    assert changed != text
    path = tmp_path / "scorecard.yaml"
    path.write_text(changed)
    with pytest.raises(InputError, match="memory_noise.*reads what agents report"):
        load_definition(path)
