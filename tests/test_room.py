"""The two-day room (design §3) and the life core's effects on what the agent does."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pandas as pd
import pytest

from harness import Episode
from harness.agents import AGENT_KINDS
from harness.agents.reference.model import arbitration, autonomy, life, outcomes
from policies import load_policy
from scenarios import load_scenario
from scenarios.persona import Persona, Stance

from .conftest import ROOT

REFERENCE = AGENT_KINDS["reference"]
CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")
SEEDS = range(5)


@cache
def room(seed: int, scenario=None) -> dict[str, pd.DataFrame]:
    s = scenario or load_scenario("room_two_days")
    return {k: v.to_pandas() for k, v in Episode(s, CAREFUL, seed, REFERENCE).run().items()}


def recount(t: dict[str, pd.DataFrame]) -> int:
    """An independent recount: start inventory + every ledger move = every later snapshot."""
    inv = t["state"][t["state"].variable.str.startswith("inventory:")]
    first = inv.tick.min()
    moves = t["events"][t["events"].resource.notna()]
    errors = 0
    for tick, snap in inv[inv.tick > first].groupby("tick"):
        for row in snap.itertuples():
            resource = row.variable.split(":", 1)[1]
            start = inv[
                (inv.tick == first) & (inv.agent == row.agent) & (inv.variable == row.variable)
            ].value.sum()
            moved = moves[
                (moves.resource == resource) & (moves.holder == row.agent) & (moves.tick <= tick)
            ].delta.sum()
            errors += abs(int(start + moved) - int(row.value))
    transfers = moves[moves.kind == "transfer"].groupby("event_id").delta.sum()
    return errors + int(transfers.abs().sum())


@pytest.mark.parametrize("seed", SEEDS)
def test_two_days_alone_hold_together(seed):
    t = room(seed)
    acts, events = t["actions"], t["events"]
    assert recount(t) == 0  # no resource created or lost
    stages = set(events[events.kind == "milestone"].detail)
    assert stages & {"sketch", "body", "finish", "display"}  # past preparation
    calls = acts[acts.action == "ask_for_help"]
    assert len(calls) <= 1  # no loop of calls for help without new evidence
    assert {"eat", "sleep", "paint"} <= set(acts.action)  # not eat-sleep-look-around
    assert (acts.action == "look_around").mean() < 0.2
    flicker = events[(events.detail.fillna("").str.contains("lamp_flickers"))].tick.min()
    handled = acts[
        (acts.tick > flicker)
        & acts.action.isin(["inspect", "recontact", "clean"])
        & (acts.target == "desk")
    ]
    night_paint = acts[(acts.tick > flicker) & (acts.action == "paint") & acts.ok]
    assert len(handled) > 0 or len(night_paint) > 0  # the flicker was dealt with
    probes = t["probes"]
    message = probes[(probes.proposition == "drawer_paint") & (probes.kind == "probe")]
    assert list(message.answer_value) == ["true"]  # the unsigned message was read and kept
    ok_meals = acts[(acts.action == "eat") & acts.ok]
    assert 4 <= len(ok_meals) <= 12


BASELINE = load_policy(ROOT / "policies" / "baseline.yaml")


def first_search(t: dict[str, pd.DataFrame]) -> pd.Series:
    searches = t["actions"][t["actions"].action == "search"]
    return searches.iloc[0]


def test_out_of_paint_she_looks_where_the_note_said():
    """Careful: the note read at noon comes to mind when the paint runs out that evening; the
    search is the labelled decision, in line, and the drawer's paint then moves by the ledger."""
    t = room(0)
    look = first_search(t)
    assert (look.target, look.decision_point, look["in_line"]) == (
        "desk_drawer",
        "looks_for_paint",
        True,
    )
    taken = t["events"][
        (t["events"].kind == "transfer")
        & (t["events"].resource == "paint")
        & (t["events"].holder == "desk_drawer")
    ]
    assert list(taken.delta) == [-1]
    assert recount(t) == 0


def test_baseline_keeps_the_note_yet_looks_as_if_it_never_read_it():
    """Baseline still holds the belief in the note, but retrieval (two memories, by recency)
    does not bring it back when the paint runs out - it looks in the usual places instead -
    nor when it is asked (answers go through recall, issue 14)."""
    t = {
        k: v.to_pandas()
        for k, v in Episode(load_scenario("room_two_days"), BASELINE, 0, REFERENCE).run().items()
    }
    look = first_search(t)
    assert (look.target, look["in_line"]) == ("art_cabinet", False)
    probes = t["probes"]
    asked = probes[(probes.proposition == "drawer_paint") & (probes.kind == "probe")]
    assert asked.answer_value.isna().all()  # asked, it does not recall it ...
    held = t["beliefs"][t["beliefs"].proposition == "drawer_paint"]
    assert (held.iloc[-1].value, held.iloc[-1].status) == ("true", "current")  # ... yet holds it
    searches = t["actions"][t["actions"].action == "search"]
    assert not (searches.target == "desk_drawer").any()
    assert searches.target.is_unique  # each usual place once, then the project waits


def test_a_planted_leak_breaks_the_recount():
    t = room(0)
    leaked = dict(t)
    extra = (
        t["events"]
        .iloc[[0]]
        .assign(kind="transfer", resource="meal", holder="mara", delta=1, event_id=999_999)
    )
    leaked["events"] = pd.concat([t["events"], extra])
    assert recount(leaked) > 0


def test_a_protected_stance_vetoes_and_the_trace_says_so():
    s = load_scenario("room_two_days")
    mara = s.agents[0]
    stubborn = mara.persona.model_copy(
        update={"stances": (Stance(id="no_painting_today", forbids=("paint",), reason="a vow"),)}
    )
    vowed = s.model_copy(update={"agents": (mara.model_copy(update={"persona": stubborn}),)})
    t = {k: v.to_pandas() for k, v in Episode(vowed, CAREFUL, 0, REFERENCE).run().items()}
    assert not (t["actions"].action == "paint").any()
    conflicts = t["plans"][t["plans"].reason.str.startswith("rule conflict")]
    assert len(conflicts) > 0 and (conflicts.reason == "rule conflict: no_painting_today").all()


def test_a_request_against_a_stance_is_declined_as_a_rule_conflict():
    t = {
        k: v.to_pandas()
        for k, v in Episode(load_scenario("picnic_request"), CAREFUL, 0, REFERENCE).run().items()
    }
    rowan = t["plans"][(t["plans"].agent == "rowan") & (t["plans"].goal.str.startswith("request"))]
    assert list(rowan.reason) == ["rule conflict"]


# --- every dynamic state changes a candidate or an expression ------------------------------------
PERSONA = Persona()
ROOM = load_scenario("room_two_days").agents[0].room
MIND = autonomy.initial_mind(
    {"food_cabinet|meal": 2, "art_cabinet|paper": 2, "art_cabinet|paint": 2}, ROOM
)
NOON = 12 * 60 + 30


def actions_for(state: life.LifeState, minute: int = NOON) -> dict[str, float]:
    options, _ = autonomy.candidates(MIND, state, PERSONA, ROOM, minute)
    return {c.action: c.score for c in options}


def test_hunger_makes_eating_a_candidate():
    fed = life.initial_state(PERSONA, NOON - 600)
    starving = life.advance(fed, PERSONA, NOON + 600, asleep=False)  # deficit past 0.65
    assert "eat" not in actions_for(life.initial_state(PERSONA, NOON))
    assert "eat" in actions_for(starving, NOON + 600)


def test_energy_deficit_makes_rest_a_candidate():
    rested = life.initial_state(PERSONA, 9 * 60)
    tired = life.advance(rested, PERSONA, 9 * 60 + 400, asleep=False)
    assert "sleep" not in actions_for(life.initial_state(PERSONA, 9 * 60), 9 * 60)
    assert "sleep" in actions_for(tired, 9 * 60 + 400)


def test_joy_raises_the_appetite_for_the_project():
    calm = life.initial_state(PERSONA, NOON)
    glad = life.apply_event(
        calm,
        PERSONA,
        life.appraise("milestone", goal_related=True, caused_by="self", expected=True, helps=True),
        1,
        NOON,
    )
    assert actions_for(glad)["paint"] > actions_for(calm)["paint"]


def test_skill_confidence_changes_where_to_paint():
    state = life.initial_state(PERSONA, NOON)
    for i in range(4):
        state = life.record_outcome(state, "painting", "desk", True, i)
    options, _ = autonomy.candidates(MIND, state, PERSONA, ROOM, NOON)
    assert next(c for c in options if c.action == "paint").target == "desk"
    for i in range(4, 12):
        state = life.record_outcome(state, "painting", "easel", True, i)
        state = life.record_outcome(state, "painting", "desk", False, 100 + i)
    options, _ = autonomy.candidates(MIND, state, PERSONA, ROOM, NOON)
    assert next(c for c in options if c.action == "paint").target == "easel"


def test_arousal_narrows_what_gets_noticed():
    from harness.agents.reference import reference_agent
    from harness.engine.contract import AgentSetup, Observation
    from harness.engine.rng import Draws

    spec = load_scenario("public_fact").agents[0]

    def noticed(arousal: float) -> int:
        agent = reference_agent(AgentSetup("t", spec, CAREFUL, Draws("t", 0), 0, 2880, 5))
        agent.life.state = life.LifeState(last_minute=600, arousal=arousal)
        before = len(agent.memory.experiences)
        for i in range(10):
            agent.observe(Observation("chat", 600, i, "heard", f"p{i}"))
        return len(agent.memory.experiences) - before

    assert noticed(1.0) < noticed(0.0)


def test_mood_changes_what_a_plan_recalls_first():
    from harness.agents.reference.model.memory import Memory, Query, retrieve, write
    from harness.engine.rng import Draws

    m = Memory("ana", 10)
    write(m, 0, 0, channel="seen", subject="bakery", importance=0.5, valence=0.8)
    write(m, 0, 1, channel="seen", subject="bakery", importance=0.5, valence=-0.8)
    top = CAREFUL.with_values({"retrieval.top_k": 1})
    up = retrieve(m, Query("bakery", "plan"), 5, top, Draws("x", 0), mood=0.9)
    down = retrieve(m, Query("bakery", "plan"), 5, top, Draws("x", 0), mood=-0.9)
    assert up[0].experience.valence > 0 > down[0].experience.valence


def test_time_composes_for_an_idle_agent():
    state = life.initial_state(PERSONA, 0)
    straight = life.advance(state, PERSONA, 2000, asleep=False)
    stepped = life.advance(
        life.advance(state, PERSONA, 777, asleep=False), PERSONA, 2000, asleep=False
    )
    assert stepped.energy_deficit == straight.energy_deficit
    assert stepped.valence == pytest.approx(straight.valence, abs=1e-9)


def test_practices_slip_postpone_vary_and_repair():
    from scenarios.persona import Practice

    washer = Persona(
        practices=(
            Practice(
                id="wash_up",
                cue="morning",
                action="wash",
                variants=("quick_rinse",),
                window_minutes=90,
                repair_next_day=True,
            ),
        )
    )
    state = life.initial_state(washer, 0)
    day2 = 24 * 60
    early, late = day2 + ROOM.morning + 5, day2 + ROOM.morning + 80

    def practice(mind, minute, slip=0.5):
        options, _ = autonomy.candidates(mind, state, washer, ROOM, minute, slip)
        return next((c for c in options if c.action == "wash"), None)

    done_yesterday = replace_mind(practiced={"wash_up": 1})
    assert practice(done_yesterday, early).minutes == 10
    assert "quick_rinse" in practice(done_yesterday, late).reason  # late: the lesser variant
    assert practice(done_yesterday, early, slip=0.01) is None  # a slip
    missed = replace_mind(practiced={"wash_up": 0})  # not done on day 1
    repaired = practice(missed, early, slip=0.01)
    assert repaired is not None and "repaired" in repaired.reason  # made up, never slipped
    assert repaired.score > practice(done_yesterday, early).score
    assert practice(replace_mind(practiced={"wash_up": 2}), early) is None  # done today


def replace_mind(**changes):
    from dataclasses import replace

    return replace(MIND, **changes)


def test_situational_rules_forbid_and_prefer_by_occasion_and_place():
    from scenarios.persona import Rule

    night = 23 * 60
    painter = Persona(
        rules=(
            Rule(when={"occasion": "night"}, forbid="paint"),
            Rule(when={"place": "trash"}, prefer="tidy"),
        )
    )
    lit = replace_mind(fixture="ok", holding={"box": 1})
    state = life.initial_state(painter, night)
    options, _ = autonomy.candidates(lit, state, painter, ROOM, night)
    assert any(c.action == "paint" for c in options)
    _choice, vetoed = arbitration.arbitrate(options, painter, ROOM, lit, night, Draws0(), "x")
    assert ("paint", "rule for night at desk") in [(c.action, why) for c, why in vetoed] or (
        "paint",
        "rule for night at easel",
    ) in [(c.action, why) for c, why in vetoed]
    day_options, _ = autonomy.candidates(
        lit, life.initial_state(painter, NOON), painter, ROOM, NOON
    )
    _, none_vetoed = arbitration.arbitrate(day_options, painter, ROOM, lit, NOON, Draws0(), "x")
    assert not none_vetoed  # by day the rule does not apply
    pair = [
        autonomy.Candidate("look_around", "floor", 0.5),
        autonomy.Candidate("tidy", "trash", 0.4),
    ]
    plain, _ = arbitration.arbitrate(pair, Persona(), ROOM, lit, NOON, Draws0(), "x")
    preferred, _ = arbitration.arbitrate(pair, painter, ROOM, lit, NOON, Draws0(), "x")
    assert (plain.action, preferred.action) == ("look_around", "tidy")


class Draws0:
    def uniform(self, *key: object) -> float:
        return 0.5


# --- out of a material: memory's leads, then the usual places, each once -------------------------
def test_a_missing_material_is_looked_for_where_memory_points_then_where_it_usually_is():
    out_of_paint = autonomy.Mind(stage="sketch", stock={"art_cabinet|paint": 0})
    assert autonomy.unsourced(out_of_paint, ROOM) == "paint"
    state = life.initial_state(PERSONA, NOON)

    def next_search(mind: autonomy.Mind) -> str | None:
        options, _ = autonomy.candidates(mind, state, PERSONA, ROOM, NOON)
        return next((c.target for c in options if c.action == "search"), None)

    led = autonomy.with_leads(out_of_paint, "paint", ("drawer",))
    assert autonomy.unsourced(led, ROOM) is None  # memory is asked once per shortage
    assert next_search(led) == "drawer"
    assert next_search(autonomy.with_leads(out_of_paint, "paint", ())) == "art_cabinet"
    searched = replace(led, searched=("drawer|paint", "art_cabinet|paint", "supply_port|paint"))
    assert next_search(searched) is None  # nowhere left: the project waits
    arrived = outcomes.on_sound(searched, "supply_port", NOON)
    assert next_search(arrived) is None  # first see what arrived
    assert arrived.searched == () and arrived.leads == {}  # new evidence: worth asking again


def test_a_search_result_teaches_the_stock_and_a_pick_up_ends_the_shortage():
    mind = autonomy.with_leads(autonomy.Mind(stage="sketch"), "paint", ("drawer",))
    state = life.initial_state(PERSONA, NOON)
    found, _ = outcomes.on_result(
        mind, state, PERSONA, ROOM, "search", "drawer", "paint", True, "paint:2", NOON, 1
    )
    assert found.stock["drawer|paint"] == 2 and "drawer|paint" in found.searched
    options, _ = autonomy.candidates(found, state, PERSONA, ROOM, NOON)
    assert ("pick_up", "drawer") in {(c.action, c.target) for c in options}
    held, _ = outcomes.on_result(
        found, state, PERSONA, ROOM, "pick_up", "drawer", "paint", True, None, NOON + 5, 2
    )
    assert held.holding["paint"] == 1 and "paint" not in held.leads


def test_a_second_room_is_written_as_data_only():
    """Other furniture, another project, another clock: a scenario file and nothing else (the
    engine names none of it; tests/test_layout.py checks that)."""
    studio = load_scenario(ROOT / "tests" / "scenarios" / "studio.yaml")
    t = {k: v.to_pandas() for k, v in Episode(studio, CAREFUL, 0, REFERENCE).run().items()}
    acts, events = t["actions"], t["events"]
    assert recount(t) == 0
    stages = list(events[events.kind == "milestone"].detail)
    assert stages[:5] == ["wedge", "throw", "trim", "fire", "glaze"]  # the project, in order
    pots = events[(events.resource == "pot") & (events.holder == "shelf")]
    assert pots.delta.sum() >= 1  # a lasting work, by the ledger
    assert {"eat", "sleep", "throw_pot"} <= set(acts.action)
    assert set(acts[acts.action == "sleep"].target) == {"cot"}
    assert set(acts[acts.action == "throw_pot"].target) <= {"wheel", "workbench"}
