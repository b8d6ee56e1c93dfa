"""Tables an agent declares (issue 47): a plug-in's own row types are recorded as Parquet
tables of their own, behind the process boundary as in process (byte for byte), carry the
schema version and what an episode sums, are read back and checked like the harness's, and
the engine names no agent's table. `examples/gossip.py` records a row per matter it retells."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from examples.gossip import Gossip, Retelling
from harness.engine import diagnostics
from harness.engine.declared import ColumnType, TableDeclaration, declaration
from harness.engine.diagnostics import diagnostic_row, usage
from harness.engine.runner import Job, run_serial
from harness.engine.schema import SCHEMA_VERSION, TABLES
from harness.engine.store import read_verified, write_episode
from scenarios import load_scenario

from .conftest import ROOT, villagelab

AGENT = "examples.gossip:Gossip"
POLICY = ROOT / "examples" / "gossip_policy.yaml"


@pytest.fixture(scope="module")
def gossip_policy() -> Any:
    from harness.agents.registry import resolve

    return resolve(AGENT).load_policy(POLICY)


def test_a_row_types_fields_declare_its_table() -> None:
    declared = declaration(Retelling)
    assert declared.name == "gossip_retellings" and declared.sums == ("words",)
    assert dict(declared.columns) == {
        "agent": ColumnType.TEXT,
        "partner": ColumnType.TEXT,
        "proposition": ColumnType.TEXT,
        "named_source": ColumnType.FLAG,
        "words": ColumnType.INTEGER,
    }
    assert TableDeclaration.from_plain(declared.to_plain()) == declared
    schema = declared.schema()
    assert schema.names[:4] == ["scenario", "seed", "tick", "event_id"]
    assert schema.metadata[b"villagelab.schema_version"] == SCHEMA_VERSION.encode()
    # the engine names no agent's table: the built-in agents declare theirs the same way
    assert not {"llm_calls", "lessons", "gossip_retellings"} & set(TABLES)


@pytest.mark.parametrize(
    ("plain", "expected"),
    [
        (("probes", [("x", "string")], []), "the harness's own table"),
        (("../up", [("x", "string")], []), "expected a snake_case name"),
        (("mine", [("x", "object")], []), "not a table declaration"),
        (("mine", [("tick", "int64")], []), "column 'tick'"),
        (("mine", [("x", "string")], ["x"]), "sums 'x': expected one of its integer or number"),
        ("mine", "not a table declaration"),
    ],
)
def test_a_declaration_from_the_agents_side_is_checked(plain: Any, expected: str) -> None:
    with pytest.raises(ValueError, match=expected):
        TableDeclaration.from_plain(plain)


def test_a_declared_table_sums_the_columns_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diagnostics, "_ROWS", dict(diagnostics._ROWS))
    monkeypatch.setattr(diagnostics, "_DECLARED", dict(diagnostics._DECLARED))

    @diagnostic_row
    @dataclasses.dataclass(frozen=True)
    class Spend:
        table: ClassVar[str] = "spend"
        sums: ClassVar[tuple[str, ...]] = ("cost", "tokens")
        minute: int
        event_id: int
        cost: float
        tokens: int | None

    rows = [
        {"scenario": "s", "seed": 0, "tick": t, "event_id": 1, "cost": c, "tokens": k}
        for t, c, k in [(0, 0.5, 10), (1, 0.25, None)]
    ]
    table = pa.Table.from_pylist(rows, schema=declaration(Spend).schema())
    assert usage({"spend": table}) == {"spend.rows": 2.0, "spend.cost": 0.75, "spend.tokens": 10.0}


def test_a_plugins_table_is_recorded_behind_the_boundary_as_in_process(
    tmp_path: Path, gossip_policy: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.engine import boundary

    scenario = load_scenario("public_fact")
    assert boundary.isolated(AGENT)
    (behind,) = run_serial([Job(scenario, 0)], gossip_policy, AGENT)
    monkeypatch.setenv(boundary.VARIABLE, "none")
    (inside,) = run_serial([Job(scenario, 0)], gossip_policy, AGENT)
    assert behind.status == inside.status == "ok"
    assert set(behind.tables) == {*TABLES, "gossip_retellings"}
    told = behind.tables["gossip_retellings"]
    assert told.num_rows > 0 and set(told["agent"].to_pylist()) <= {a.id for a in scenario.agents}
    assert behind.model_usage == inside.model_usage
    assert behind.model_usage["gossip_retellings.rows"] == told.num_rows
    written = {}
    for where, record in (("behind", behind), ("inside", inside)):
        written[where] = write_episode(tmp_path / where, "public_fact", 0, record.tables)
    assert written["behind"] == written["inside"]  # the same bytes, table for table
    digests, sizes = written["behind"]
    read = read_verified(
        tmp_path / "behind", {("public_fact", 0): digests}, {("public_fact", 0): sizes}
    )
    assert len(read["gossip_retellings"]) == told.num_rows
    path = tmp_path / "behind" / "traces" / "gossip_retellings" / "public_fact" / "0.parquet"
    assert pq.read_schema(path).metadata[b"villagelab.sums"] == b"words"


class _Forger:
    """A plug-in's agent that hands rows its factory did not declare, or of the wrong type."""

    row_types: tuple[type, ...] = ()

    def __init__(self, setup: Any, rows: list[Any]) -> None:
        self.inner, self.rows = Gossip(setup), rows

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def drain_diagnostics(self) -> list[Any]:
        rows, self.rows = self.rows, []
        return rows


def undeclared(setup: Any) -> _Forger:
    return _Forger(setup, [Retelling(0, 0, setup.name, "x", "p", True, 3)])


def mistyped(setup: Any) -> _Forger:
    return _Forger(setup, [Retelling(0, 0, setup.name, "x", "p", True, "three")])  # type: ignore[arg-type]


undeclared.row_types = ()  # type: ignore[attr-defined]
mistyped.row_types = (Retelling,)  # type: ignore[attr-defined]


def test_rows_of_a_table_not_declared_or_of_the_wrong_type_crash_the_episode_saying_so(
    gossip_policy: Any,
) -> None:
    scenario = load_scenario("public_fact")
    here = "tests.test_declared_tables"
    for factory, expected in [
        ("undeclared", "a row of table 'gossip_retellings', which its factory does not declare"),
        ("mistyped", "gossip_retellings.words = 'three'; expected integer"),
    ]:
        (record,) = run_serial([Job(scenario, 0)], gossip_policy, f"{here}:{factory}")
        assert record.status == "crashed" and expected in str(record.error), record.error


def test_a_factory_naming_an_unregistered_row_type_is_refused_before_anything_runs() -> None:
    from harness.agents.registry import row_tables
    from policies import InputError

    @dataclasses.dataclass(frozen=True)
    class Loose:
        table: ClassVar[str] = "loose"
        minute: int
        event_id: int

    class Factory:
        row_types = (Loose,)

    with pytest.raises(InputError, match="Loose not registered; decorate each"):
        row_tables(Factory, "--agent 'x'")


@pytest.mark.slow
def test_a_run_writes_the_agents_table_into_its_manifest_and_scores_it_back(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    ran = villagelab(
        *("run", "--agent", AGENT, "--policy", str(POLICY), "--scenario", "public_fact"),
        *("--seeds", "0", "--serial", "--out", str(out)),
        cwd=ROOT,
    )
    assert ran.returncode == 0, ran.stderr
    assert "usage_gossip_retellings.words:" in ran.stdout
    import json

    (entry,) = json.loads((out / "manifest.json").read_text())["episodes"]
    assert "gossip_retellings" in entry["sha256"]
    scored = villagelab("score", str(out), cwd=ROOT)
    assert scored.returncode == 0, scored.stderr
    told = out / "traces" / "gossip_retellings" / "public_fact" / "0.parquet"
    data = bytearray(told.read_bytes())
    data[len(data) // 2] ^= 0xFF
    told.write_bytes(bytes(data))
    damaged = villagelab("score", str(out), cwd=ROOT)
    assert damaged.returncode == 2 and "gossip_retellings" in damaged.stderr, damaged.stderr
