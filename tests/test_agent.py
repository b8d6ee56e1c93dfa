"""The agent interface and the reference agent's information core (issue 3)."""

from __future__ import annotations

import json

import pytest

from harness import Agent, Episode
from harness.agents import AGENT_KINDS
from harness.agents.reference.model.memory import Memory, Query, reflect, retrieve, summarise, write
from harness.engine.rng import Draws
from policies import Policy, load_policy
from scenarios import load_scenario

from .conftest import ROOT

CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")
BASELINE = load_policy(ROOT / "policies" / "baseline.yaml")


def episode(
    name: str = "public_fact",
    policy: Policy = CAREFUL,
    seed: int = 0,
    kind: str = "reference",
    until: int | None = None,
) -> Episode:
    ep = Episode(load_scenario(name), policy, seed, AGENT_KINDS[kind])
    ep.run(until)
    return ep


@pytest.mark.parametrize("kind", sorted(AGENT_KINDS))
def test_every_agent_kind_implements_the_interface(kind):
    ep = episode(kind=kind, until=10 * 60)
    assert all(isinstance(a, Agent) for a in ep.agents.values())


@pytest.mark.parametrize("kind", sorted(AGENT_KINDS))
def test_a_probe_leaves_the_agent_state_unchanged(kind):
    ep = episode(kind=kind, until=20 * 60)
    knowers = 0
    from harness.engine import state_hash

    for name, agent in ep.agents.items():
        before = state_hash(agent)
        knowers += agent.answer("bakery_closed_day2", 20 * 60).value == "true"
        agent.answer("no_such_proposition", 20 * 60)
        assert state_hash(agent) == before, name
    assert knowers >= 2  # the probes asked agents that do hold the belief


@pytest.mark.parametrize(
    "name, kind",
    [
        ("public_fact", "reference"),
        ("secret", "reference"),
        ("picnic_request", "reference"),
        ("room_two_days", "reference"),  # the agent on its own: autonomy among its components
        ("public_fact", "simple"),
    ],
)
def test_a_restored_run_continues_byte_identically(name, kind):
    whole = Episode(load_scenario(name), CAREFUL, 4, AGENT_KINDS[kind]).run()
    first = episode(name, seed=4, kind=kind, until=20 * 60)
    saved = json.loads(json.dumps(first.get_state()))  # plain JSON, nothing else survives
    resumed = Episode(load_scenario(name), CAREFUL, 4, AGENT_KINDS[kind])
    resumed.set_state(saved)
    rest = resumed.run()
    for table, expected in whole.items():
        assert rest[table].equals(expected), table


def test_retrieval_only_ever_returns_the_owners_memories():
    ep = episode(until=30 * 60)
    ops = ep.rec.tables()["memory_ops"].to_pandas()
    retrieved = ops[(ops.op == "retrieve") & ops.experience_id.notna()]
    assert len(retrieved) > 0
    assert (retrieved.experience_owner == retrieved.agent).all()


def test_a_planted_memory_bleed_is_seen_in_the_isolation_record():
    """A faulty agent implementation that shares one memory between agents is caught."""
    from harness.agents.reference import reference_agent

    shared: dict[str, Memory] = {}

    def leaky(setup):
        agent = reference_agent(setup)
        agent.memory.store = shared.setdefault(
            "one", agent.memory.store
        )  # the fault: one namespace
        return agent

    ep = Episode(load_scenario("public_fact"), CAREFUL, 0, leaky)
    ops = ep.run()["memory_ops"].to_pandas()
    retrieved = ops[(ops.op == "retrieve") & ops.experience_id.notna()]
    assert (retrieved.experience_owner != retrieved.agent).sum() > 0
    # the scored isolation check rests on what agents say against what they were exposed to,
    # not on this internal record: see tests/test_metrics_fire.py


def test_capacity_evicts_the_least_important_and_traces_it():
    small = CAREFUL.with_values({"memory.capacity": 20})
    ops = episode(policy=small).rec.tables()["memory_ops"].to_pandas()
    evicted = ops[ops.op == "evict"]
    assert len(evicted) > 0 and (ops["size"] <= 20).all()
    assert evicted.importance.mean() < ops[ops.op == "write"].importance.mean()


def test_strength_grows_only_on_use_by_the_formula():
    from harness.agents.reference.model.memory import retention, strengthen

    m = Memory("ana", 10)
    exp, _ = write(m, 0, 1, channel="seen", subject="bakery", importance=0.5)
    s0 = m.strength[exp.id]
    retrieve(m, Query("bakery", "plan"), 600, CAREFUL, Draws("x", 0))
    assert m.strength[exp.id] == s0  # retrieval alone is a read
    r = retention(m, exp, 600)
    strengthen(m, [exp], 600)
    assert m.strength[exp.id] == pytest.approx(s0 * (1 + 1.2 * (1 - r)))
    assert exp.minute == 0  # age still counts from the write


def test_summaries_keep_or_drop_sources_by_policy_and_are_never_evidence():
    m = Memory("bo", 50)
    for i, teller in enumerate(("ana", "cai")):
        write(
            m,
            i,
            i,
            channel="told",
            subject="bakery",
            importance=0.6,
            proposition="p",
            value="true",
            modality="likely",
            told_by=teller,
            origin="ana",
        )
    kept, _ = summarise(m, 2000, 9, 1000, keep_source=True)
    assert kept[0].kind == "summary" and kept[0].origin == "ana" and not kept[0].is_evidence
    m2 = Memory("bo", 50)
    write(
        m2,
        0,
        0,
        channel="told",
        subject="bakery",
        importance=0.6,
        proposition="p",
        value="true",
        told_by="ana",
        origin="ana",
    )
    write(
        m2,
        1,
        1,
        channel="told",
        subject="bakery",
        importance=0.6,
        proposition="p",
        value="true",
        told_by="cai",
        origin="ana",
    )
    dropped, _ = summarise(m2, 2000, 9, 1000, keep_source=False)
    assert dropped[0].told_by is None and dropped[0].origin is None


def test_reflections_carry_evidence_and_counter_evidence_and_never_cite_themselves():
    m = Memory("cai", 50)
    for i, value in enumerate(("true", "true", "false")):
        write(
            m,
            i,
            i,
            channel="told",
            subject="bridge",
            importance=0.5,
            proposition="b",
            value=value,
            told_by=f"x{i}",
        )
    (first,), _ = reflect(m, 10, 5)
    assert first.value == "true" and len(first.evidence) == 2 and len(first.counter) == 1
    assert first.id not in first.evidence + first.counter and not first.is_evidence
    again, _ = reflect(m, 20, 6)
    assert again == []  # the same evidence gives no second reflection


def test_newer_fact_supersedes_the_older_with_the_link_kept():
    """What replaced what is read off what the news says (the meeting moved from the square),
    whichever was heard first; the scenario's own links never reach the agent."""
    from harness.agents.reference import reference_agent
    from harness.engine.contract import AgentSetup, Meaning, Observation

    spec = load_scenario("public_fact").agents[0]
    old = Meaning("meet_square", "square", "hosts_meeting_on", "1")
    new = Meaning("meet_park", "square", "moved_to", "park", sense="moved_to")
    other = Meaning("bakery_closed", "bakery", "closed_on", "2", sense="unusable")
    for first, second in ((old, new), (new, old)):
        agent = reference_agent(AgentSetup("t", spec, CAREFUL, Draws("t", 0), 0, 2880, 5))
        for minute, m in ((10, first), (20, second), (30, other)):
            seen = Observation("notice", minute, minute, "read", m.subject, meaning=m, value="true")
            agent.observe(seen)
        held = agent.beliefs.held
        assert held["meet_square"].status == "superseded"
        assert held["meet_square"].superseded_by == "meet_park"
        assert held["meet_park"].status == "current"
        assert held["bakery_closed"].status == "current"  # about another subject: untouched


def test_a_proposition_holds_as_long_as_it_says():
    from harness.agents.reference.model.beliefs import holds_until
    from harness.engine.contract import Meaning

    day2 = Meaning("bakery_closed_day2", "bakery", "closed_on", "2", sense="unusable")
    assert holds_until(day2) == 2 * 24 * 60  # usable again when day 2 is over
    assert holds_until(Meaning("meet", "square", "hosts_meeting_on", "1")) is None


def test_hearing_the_same_source_again_is_not_evidence_and_trust_moves_only_on_outcomes():
    from harness.agents.reference import reference_agent
    from harness.engine.contract import AgentSetup, Meaning, Observation

    spec = load_scenario("public_fact").agents[1]
    agent = reference_agent(AgentSetup("t", spec, CAREFUL, Draws("t", 0), 0, 2880, 5))
    m = Meaning("bridge_blocked_day1", "bridge", "blocked_on", "1")
    told = Observation(
        "claim",
        10,
        1,
        "told",
        "bridge",
        meaning=m,
        value="true",
        modality="likely",
        speaker="ana",
        stated_source="self",
    )
    agent.observe(told)
    first = agent.beliefs.held[m.proposition].confidence
    agent.observe(told)  # Ana says it again
    assert agent.beliefs.held[m.proposition].confidence == first
    assert agent.trust.relations.trust == {}  # nothing observed yet: trust has not moved
    agent.observe(Observation("notice", 30, 3, "seen", "bridge", meaning=m, value="false"))
    assert agent.trust.relations.trust["ana|reports_facts"] < float(CAREFUL["trust.prior"])
    assert agent.beliefs.held[m.proposition].value == "false"  # seeing beats hearsay


def test_private_claims_never_reach_outsiders_when_privacy_is_respected():
    ep = episode("secret", seed=1)
    told = ep.rec.tables()["utterances"].to_pandas()
    audience = {"ana", "bo", "dara"}
    assert told[told.privacy == "private"].listener.isin(audience).all()
    leaky = (
        episode("secret", policy=CAREFUL.with_values({"sharing.respect_privacy": False}), seed=1)
        .rec.tables()["utterances"]
        .to_pandas()
    )
    assert (~leaky[leaky.privacy == "private"].listener.isin(audience)).any()


def test_rendered_text_hedges_hearsay_and_never_shows_numbers():
    told = episode("replan_bridge_rumor", seed=2).rec.tables()["utterances"].to_pandas()
    assert not told.text.str.contains(r"\d\.\d|%").any()
    hearsay = told[told.stated_source.notna() & (told.stated_source != "self")]
    assert len(hearsay) > 0 and hearsay.text.str.contains(" says ").all()
    assert told[told.modality == "rumor"].text.str.contains("might").all()


def test_a_request_is_planned_and_fulfilled_and_a_stance_declines_it():
    tables = episode("picnic_request", seed=0).rec.tables()
    acts = tables["actions"].to_pandas()
    blossom = acts[acts.request_id == "pastry_for_picnic"]
    assert list(blossom.action) == ["pick_up", "deliver"] and blossom.ok.all()
    deadline = tables["requests"].to_pandas().set_index("request_id").deadline
    assert blossom.tick.max() <= deadline["pastry_for_picnic"]
    rowan = acts[acts.request_id == "pastry_from_rowan"]
    assert list(rowan.action) == ["decline"] and list(rowan.target) == ["no_sweets"]
    # asked later, each talks about it consistently with what it did, as first-hand
    answers = tables["probes"].to_pandas().set_index("probe_id")
    assert answers.loc["asked_blossom", "answer_value"] == "true"
    assert answers.loc["asked_rowan", "answer_value"] == "false"
    assert set(answers.loc[["asked_blossom", "asked_rowan"], "answer_source"]) == {"self"}


OUTCOMES = ("blossom_brings_pastry", "rowan_brings_pastry")


def test_a_request_outcome_is_the_agents_own_conclusion_never_handed_to_it():
    """The harness tells an agent what it was asked about, never how it went: the outcome
    reaches it only through its own action results, and only an agent that reasons about its
    request believes anything about it."""
    tables = {k: v.to_pandas() for k, v in episode("picnic_request", seed=0).rec.tables().items()}
    seen = tables["observations"]
    about = seen[seen.proposition.isin(OUTCOMES)]
    own = about[about.agent + "_brings_pastry" == about.proposition]
    assert (own.kind == "request").sum() == 2  # the ask names it
    assert set(about.kind) <= {"request", "claim"}  # no notice of how it went: others' words
    exposed = tables["exposures"]
    exposed = exposed[exposed.proposition.isin(OUTCOMES)]
    assert len(exposed) > 0 and (exposed.channel == "told").all()  # only others' words
    # Blossom's belief is first-hand, formed once her delivery's result is in
    believed = tables["beliefs"]
    hers = believed[(believed.agent == "blossom") & (believed.proposition == OUTCOMES[0])]
    acts = tables["actions"]
    delivered = acts[(acts.agent == "blossom") & (acts.action == "deliver")].tick.iloc[0]
    assert hers.tick.iloc[0] > delivered and hers.told_by.isna().iloc[0]
    # the baseline (it sets off late) finds the bakery shut and says so, first-hand
    failed = {k: v.to_pandas() for k, v in episode("picnic_request", BASELINE).rec.tables().items()}
    tried = failed["actions"][failed["actions"].request_id == "pastry_for_picnic"]
    assert list(tried.action) == ["pick_up"] and not tried.ok.any()
    asked = failed["probes"].set_index("probe_id")
    assert asked.loc["asked_blossom", "answer_value"] == "false"
    assert asked.loc["asked_blossom", "answer_source"] == "self"
    # an agent that never reasons about its requests has nothing to say about them
    simple = episode("picnic_request", kind="simple").rec.tables()["probes"].to_pandas()
    assert simple[simple.proposition.isin(OUTCOMES)].answer_value.isna().all()


def test_usefulness_is_guessed_from_what_the_agent_remembers_of_the_listener():
    from harness.agents.reference.model.conversation import USEFUL, usefulness

    m = Memory("ana", 50)
    write(m, 0, 1, channel="seen", subject="bakery", importance=0.1, company=("bo", "cy"))
    places = {"bakery", "park"}
    once = usefulness(places, "bo", m.experiences, (), 0)
    assert once == {"bakery": pytest.approx(USEFUL["seen_there"] / 3), "park": 0.0}
    for minute in (60, 120):  # seen there three times: the cue in full
        write(m, minute, 2, channel="seen", subject="bakery", importance=0.1, company=("bo",))
    assert usefulness(places, "bo", m.experiences, (), 0)["bakery"] == USEFUL["seen_there"]
    assert usefulness(places, "dee", m.experiences, (), 0)["bakery"] == 0.0  # never seen
    # its own plans and old acquaintance make news likelier to matter, never certain to
    guess = usefulness(places, "dee", m.experiences, ("park",), 3)
    assert guess["bakery"] == USEFUL["acquainted"] and 0.5 < guess["park"] < 1.0


def test_a_user_action_runs_without_touching_the_loop(monkeypatch, tmp_path):
    """A physics plug-in named in the scenario (a module outside the harness, registered by an
    installed package) adds an action."""
    from .test_data_runs_no_code import plugin_site

    monkeypatch.syspath_prepend(str(plugin_site(tmp_path)))
    scenario = load_scenario("public_fact")
    agents = tuple(
        a.model_copy(
            update={"errands": tuple(e.model_copy(update={"action": "wave"}) for e in a.errands)}
        )
        for a in scenario.agents
    )
    waving = scenario.model_copy(
        update={"agents": agents, "physics": (*scenario.physics, "waving")}
    )
    acts = Episode(waving, CAREFUL, 0, AGENT_KINDS["reference"]).run()["actions"].to_pandas()
    assert len(acts) > 0 and (acts.action == "wave").all() and acts.ok.all()


def test_the_simple_agent_is_scored_by_the_same_scorecard():
    from scorecards import load_definition, score

    tables = {k: v.to_pandas() for k, v in episode(kind="simple").rec.tables().items()}
    card = score(
        tables, load_definition(), hashes={"harness": "h", "instrument": "i", "policy": "p"}
    )
    assert card.metrics["reach"].mean > 0
    assert "memory_noise" not in card.metrics  # no internals exposed: absent, not zero


def test_the_reference_agent_is_two_compositions_of_components_whose_states_make_its_state():
    from harness.agents.reference import AutonomousAgent, Villager

    shared = {"memory", "beliefs", "trust", "conversation", "planning", "life"}
    village = episode("public_fact", until=60).agents
    room = episode("room_two_days", until=60).agents
    assert all(type(a) is Villager for a in village.values())
    assert all(type(a) is AutonomousAgent for a in room.values())
    for agent, own in ((next(iter(village.values())), "routine"), (room["mara"], "autonomy")):
        state = agent.get_state()
        assert set(state) == shared | {own}  # one entry per component, nothing else
        components = agent.components()
        assert all(state[name] == c.get_state() for name, c in components.items())


def test_experiences_are_written_with_the_valence_their_appraisal_gave():
    """News that hinders one's plans is written as a bad experience, and a failed errand too;
    mood-congruent recall reads this (issue 14: valence was never set)."""
    ep = episode("replan_bridge", seed=0)
    felt = [
        e.valence
        for agent in ep.agents.values()
        for e in agent.memory.experiences.values()  # type: ignore[attr-defined]
    ]
    assert min(felt) < 0 and any(v == 0 for v in felt)


def test_an_aroused_listener_misses_a_peripheral_claim_a_calm_one_takes_in(tmp_path):
    """Attention narrowing on a real run (issue 14): Ana hears three alarming things about her
    picnic, then Gus tells her and calm Bo six things in one minute. Past her narrowed span she
    misses news a calm listener takes in, yet still takes in the one claim about her own plans
    (the park); what is missed is traced as a `missed` memory operation."""
    scenario = ROOT / "tests" / "scenarios" / "alarm.yaml"
    text = scenario.read_text()
    calm = tmp_path / "calm.yaml"  # the same morning without the alarming news
    calm.write_text("\n".join(ln for ln in text.splitlines() if "kind: notice" not in ln))

    def run(path):
        traces = Episode(load_scenario(path), CAREFUL, 0, AGENT_KINDS["reference"]).run()
        told = traces["utterances"].to_pandas().set_index("event_id")["proposition"]
        ops = traces["memory_ops"].to_pandas()
        missed = ops[ops.op == "missed"]
        beliefs = traces["beliefs"].to_pandas()
        heard = beliefs[beliefs.told_by == "gus"]
        return (
            {a: set(told[missed[missed.agent == a].event_id]) for a in ("ana", "bo")},
            {a: set(heard[heard.agent == a].proposition) for a in ("ana", "bo")},
        )

    missed, took_in = run(scenario)
    assert "boat_late" in missed["ana"] and "boat_late" in took_in["bo"]
    assert not missed["ana"] & took_in["ana"]  # what is traced as missed never got in
    assert "park_busy" in took_in["ana"]  # central: it touches her plan
    assert "park_busy" in missed["bo"]  # peripheral to Bo, past his span
    calm_missed, calm_took_in = run(calm)
    assert "boat_late" in calm_took_in["ana"] and not calm_missed["ana"] & {"boat_late"}
    assert len(calm_took_in["ana"]) > len(took_in["ana"])
    again, _ = run(scenario)
    assert again == missed  # deterministic
