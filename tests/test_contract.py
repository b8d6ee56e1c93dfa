"""The contract (issue 13): frozen records with enums, one AgentSetup, lifecycles checked in one
function, agent-authored words recorded verbatim, bad intents as invalid actions, typed
diagnostics, and scenarios refused when they name actions their world does not have."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import pytest

from harness import Episode
from harness.agents import AGENT_KINDS
from harness.engine.contract import (
    AgentSetup,
    BeliefStatus,
    Channel,
    Claim,
    EpisodeStatus,
    Intent,
    Meaning,
    Observation,
    ObservationKind,
    PlanStage,
)
from harness.engine.lifecycle import IllegalTransition, transition
from policies import load_policy
from scenarios import load_scenario, village

from .conftest import ROOT

CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")


def tables(agent: str, name: str = "public_fact", seed: int = 0):  # type: ignore[no-untyped-def]
    return {
        k: v.to_pandas()
        for k, v in Episode(load_scenario(name), CAREFUL, seed, agent).run().items()
    }


def test_records_take_enum_values_and_refuse_anything_else():
    obs = Observation("notice", 1, 2, "seen", "bakery")
    assert obs.kind is ObservationKind.NOTICE and obs.channel is Channel.SEEN
    assert obs == Observation(ObservationKind.NOTICE, 1, 2, Channel.SEEN, "bakery")
    with pytest.raises(ValueError):
        Observation("rumour", 1, 2, "seen", "bakery")
    with pytest.raises(ValueError):
        Intent("teleport", "bakery")
    claim = Claim(Meaning("p", "s", "q", "o"), "true", "likely", None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        claim.value = "false"  # type: ignore[misc]
    assert dataclasses.replace(claim, value="false").value == "false"  # changes build anew


@pytest.mark.parametrize(
    "old, new",
    [
        (BeliefStatus.CURRENT, BeliefStatus.FORGOTTEN),
        (BeliefStatus.FORGOTTEN, BeliefStatus.CURRENT),  # learnt again
        (None, BeliefStatus.CURRENT),
        (PlanStage.FETCH, PlanStage.CARRY_OUT),
        (PlanStage.FETCH, PlanStage.DONE),  # declined at once
        (EpisodeStatus.OK, EpisodeStatus.CRASHED),  # measuring it failed
    ],
)
def test_allowed_lifecycle_moves(old, new):
    assert transition(old, new) is new


@pytest.mark.parametrize(
    "old, new",
    [
        (BeliefStatus.SUPERSEDED, BeliefStatus.OUTDATED),
        (BeliefStatus.FORGOTTEN, BeliefStatus.OUTDATED),
        (None, BeliefStatus.FORGOTTEN),
        (PlanStage.DONE, PlanStage.CARRY_OUT),
        (PlanStage.CARRY_OUT, PlanStage.FETCH),
        (EpisodeStatus.CRASHED, EpisodeStatus.OK),
    ],
)
def test_illegal_lifecycle_moves_raise_naming_what_is_allowed(old, new):
    with pytest.raises(IllegalTransition, match="allowed"):
        transition(old, new)


def test_the_belief_component_checks_every_status_change():
    from harness.agents.reference.beliefs import Beliefs
    from harness.agents.reference.context import Diagnostics
    from harness.agents.reference.model.beliefs import Belief
    from harness.engine.rng import Draws

    spec = load_scenario("public_fact").agents[0]
    beliefs = Beliefs(AgentSetup("t", spec, CAREFUL, Draws("t", 0), 0, 100, 5), Diagnostics())
    b = Belief("p", "s", "q", "o", "true", 0.9, "certain", None, None, True)
    beliefs.set(b, 1, 1)
    beliefs.set(dataclasses.replace(b, status=BeliefStatus.FORGOTTEN), 2, 2)
    with pytest.raises(IllegalTransition):
        beliefs.set(dataclasses.replace(b, status=BeliefStatus.OUTDATED), 3, 3)


@pytest.mark.parametrize("status", [BeliefStatus.OUTDATED, BeliefStatus.FORGOTTEN])
def test_a_belief_revised_in_place_keeps_its_status(status):
    """Issue 29: a village where one value was superseded three times in two days crashed the
    reference agent (`'outdated' cannot become 'outdated'`): an outdated belief whose
    experiences were summarised is rebased onto the summary's sources, and stays outdated."""
    from harness.agents.reference.beliefs import Beliefs
    from harness.agents.reference.context import Diagnostics
    from harness.agents.reference.model.beliefs import Belief
    from harness.agents.reference.model.memory import Experience
    from harness.engine.rng import Draws

    spec = load_scenario("public_fact").agents[0]
    log = Diagnostics()
    beliefs = Beliefs(AgentSetup("t", spec, CAREFUL, Draws("t", 0), 0, 100, 5), log)
    b = Belief("p", "s", "q", "o", "true", 0.6, "likely", "ana", "bo", False, support=(1, 2))
    beliefs.set(b, 1, 1)
    beliefs.set(dataclasses.replace(b, status=status), 2, 2)
    summary = Experience(9, "t", 3, 3, "inner", "s", 0.5, "summary", "p", evidence=(1, 2))
    beliefs.rebase(summary, 3)  # the summary kept no source
    held = beliefs.get("p")
    assert held is not None and held.status is status and held.support == (9,)
    assert (held.told_by, held.origin) == (None, None)


def test_an_agent_is_made_from_one_frozen_setup():
    made: list[AgentSetup] = []

    def factory(setup: AgentSetup):  # type: ignore[no-untyped-def]
        from harness.agents.simple import SimpleAgent

        made.append(setup)
        return SimpleAgent(setup)

    Episode(load_scenario("public_fact"), CAREFUL, 3, factory).run(60)
    assert [s.name for s in made] == sorted(a.id for a in load_scenario("public_fact").agents)
    setup = made[0]
    assert (setup.scenario, setup.start, setup.tick_minutes) == ("public_fact", 0, 5)
    assert setup.policy["trust.prior"] == CAREFUL["trust.prior"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setup.start = 5  # type: ignore[misc]


def test_an_unknown_action_or_place_is_an_invalid_action_and_the_episode_goes_on():
    t = tables("tests.fixtures.agents:Confused")
    acts = t["actions"]
    invalid = acts[acts.status == "invalid"]
    assert len(invalid) == 2 * len(load_scenario("public_fact").agents)
    assert not invalid.ok.any() and invalid.decision_point.isna().all()
    unknown_action = invalid[invalid.action == "buy bread"]
    assert unknown_action.reason.str.contains("no action 'buy bread'").all()
    assert unknown_action.reason.str.contains("buy_bread").all()  # what the world does offer
    assert invalid[invalid.target == "the_moon"].reason.str.contains("no place").all()
    assert (acts.status == "ok").any()  # after the refusals, the day went on
    told = t["observations"]
    results = told[(told.kind == "action_result") & told.detail.str.contains("no place", na=False)]
    assert len(results) == len(load_scenario("public_fact").agents)  # each agent was told why


def test_a_failed_action_says_what_the_senses_noticed():
    acts = tables("harness.agents.reference:reference_agent")["actions"]
    failed = acts[acts.status == "failed"]
    assert len(failed) > 0 and (failed.reason == "the door did not open").all()
    assert acts[acts.status == "ok"].reason.isna().all()


def test_an_agents_own_words_are_recorded_verbatim_and_rendered_only_when_it_gives_none():
    quoted = tables("tests.fixtures.agents:Quoting")["utterances"]
    assert len(quoted) > 0 and (quoted.text_by == "agent").all()
    assert quoted.text.str.match(r"^\w+ to \w+: bakery_closed_day2!$").all()
    plain = tables("harness.agents.simple:SimpleAgent")["utterances"]
    assert len(plain) > 0 and (plain.text_by == "harness").all()
    assert plain.text.str.contains("closed on day 2").all()


def test_diagnostics_must_be_typed_rows():
    from harness import Job, run_serial

    (record,) = run_serial(
        [Job(load_scenario("public_fact"), 0)], CAREFUL, "tests.fixtures.agents:Scribbler"
    )
    assert record.status == "crashed" and "expected MemoryOp" in record.error


def test_an_agent_registers_its_own_row_types_and_declares_what_the_runner_sums(monkeypatch):
    import pyarrow as pa

    from harness.engine import diagnostics
    from harness.engine.declared import declaration
    from harness.engine.diagnostics import diagnostic_row, record, usage
    from harness.engine.recorder import Recorder

    monkeypatch.setattr(diagnostics, "_ROWS", dict(diagnostics._ROWS))  # this test's rows go
    monkeypatch.setattr(diagnostics, "_DECLARED", dict(diagnostics._DECLARED))

    @diagnostic_row
    @dataclasses.dataclass(frozen=True)
    class Lesson:  # an agent package's own row of a table it declares
        table: ClassVar[str] = "diary"
        minute: int
        event_id: int
        agent: str
        lesson: str
        cited: tuple[int, ...] = ()
        text: str | None = None

        @staticmethod
        def summed(rows: pa.Table) -> dict[str, float]:
            return {"lessons_drawn": float(rows.num_rows)}

    rec = Recorder("s", 0, start=0, tick_minutes=1)
    with pytest.raises(TypeError, match="'diary', which its factory does not declare"):
        record("ana", [Lesson(5, 1, "ana", "write in the morning")], rec)
    rec.declare([declaration(Lesson)])
    record("ana", [Lesson(5, 1, "ana", "write in the morning", (2, 3))], rec)
    (row,) = rec.tables()["diary"].to_pylist()
    assert (row["tick"], row["agent"], row["lesson"], row["cited"], row["text"]) == (
        5,
        "ana",
        "write in the morning",
        [2, 3],
        None,
    )
    with pytest.raises(TypeError, match=r"diary.lesson = 7; expected text"):
        record("ana", [Lesson(6, 1, "ana", 7)], rec)  # type: ignore[arg-type]
    drawn = pa.table({"lesson": ["a", "b", "c"]})
    assert usage({"diary": drawn, "actions": drawn}) == {"lessons_drawn": 3.0}
    assert usage({"diary": drawn.slice(0, 0)}) == {}  # nothing drawn: nothing to sum

    with pytest.raises(TypeError, match="mood: not columns of memory_ops"):

        @diagnostic_row
        @dataclasses.dataclass(frozen=True)
        class Strange:  # a row of one of the engine's own internal tables
            table: ClassVar[str] = "memory_ops"
            minute: int
            mood: float

    with pytest.raises(TypeError, match=r"Moody.mood: .* is not a plain type"):

        @diagnostic_row
        @dataclasses.dataclass(frozen=True)
        class Moody:
            table: ClassVar[str] = "moods"
            minute: int
            event_id: int
            mood: dict[str, float]

    for named in ("exposures", "probes", "utterances"):  # what the harness saw is its own
        with pytest.raises(TypeError, match="written by the harness only"):

            @diagnostic_row
            @dataclasses.dataclass(frozen=True)
            class Forged:
                table: ClassVar[str] = named
                minute: int


def test_a_scenario_naming_an_unregistered_action_is_refused_where_it_says_so(cli, tmp_path):
    text = (ROOT / "scenarios" / "library" / "public_fact.yaml").read_text()
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "action: buy_bread" in row)
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("action: buy_bread", "action: buy_loaf", 1))
    for command in (
        ["scenario", "validate", str(bad)],
        [
            "run",
            "--scenario",
            str(bad),
            "--policy",
            str(ROOT / "policies" / "careful.yaml"),
            "--seeds",
            "0",
            "--serial",
            "--out",
            str(tmp_path / "o"),
        ],
    ):
        result = cli(*command)
        assert result.returncode == 2, result.stderr
        assert f"bad.yaml:{line}" in result.stderr and "errands[0].action" in result.stderr
        assert "unknown action 'buy_loaf'" in result.stderr and "buy_bread" in result.stderr
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "o").exists()  # nothing half-written


def test_an_arrival_names_the_others_there_sorted_by_name():
    """An arrival's company, and its detail, name the others there, sorted (docs/agents.md)."""
    arrivals = []

    class Spied(Episode):
        def _deliver(self, name: str, obs: Observation) -> None:
            if obs.kind is ObservationKind.ARRIVAL:
                there = [n for n, p in self.positions.items() if p.location == obs.subject]
                others = tuple(sorted(n for n in there if n != name))
                arrivals.append(((obs.company, obs.detail), (others, ",".join(others) or None)))
            super()._deliver(name, obs)

    Spied(village(40, 0, hours=24), CAREFUL, 0, AGENT_KINDS["reference"]).run()
    assert sum(1 for (company, _), _ in arrivals if len(company) > 1) > 20
    assert all(seen == expected for seen, expected in arrivals)
