"""Encounters per agent (docs/design.md, Conversation): two agents alone meet with about the
scenario's chance per tick, and an agent's chats grow with its company only up to the crowd
limit — never with the size of the village."""

from __future__ import annotations

import pyarrow.compute as pc

from harness import Episode
from harness.agents import AGENT_KINDS
from harness.engine.positions import Position
from policies import load_policy
from scenarios import village

from .conftest import ROOT

CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")


def chats_at_the_square(agents: int, ticks: int, **world) -> tuple[int, float]:
    """Everyone kept at the square for `ticks` minutes: chats, and chats per agent."""
    scenario = village(agents, 0, hours=24).model_copy(update=world)
    episode = Episode(scenario, CAREFUL, 0, AGENT_KINDS["reference"])
    for name in list(episode.positions):
        episode.positions[name] = Position("square")
    for minute in range(600, 600 + ticks):
        episode.encounters.meet(minute, episode.positions)
    events = episode.rec.tables()["events"]
    chats = pc.sum(pc.equal(events["kind"], "chat")).as_py() or 0
    return chats, 2 * chats / agents


def test_two_agents_alone_meet_with_about_the_encounter_chance():
    chats, _ = chats_at_the_square(2, 4000, encounter_chance=0.1, chat_cooldown=1)
    assert 0.085 * 4000 < chats < 0.115 * 4000  # 1 - (1 - 0.05)^2 = 0.0975 a tick


def test_a_crowd_adds_no_chats_past_the_limit_and_company_below_it_does():
    few = chats_at_the_square(4, 600, encounter_chance=0.01)[1]
    limit = chats_at_the_square(13, 600, encounter_chance=0.01)[1]
    crowd = chats_at_the_square(150, 600, encounter_chance=0.01)[1]
    assert few < limit / 2  # three others to notice against twelve
    assert 0.7 < crowd / limit < 1.4  # 149 others are noticed as twelve


def chats_a_day(agents: int) -> float:
    """Chats per agent in one generated-village day (seed 0), as the village lives it."""
    episode = Episode(village(agents, 0, hours=24), CAREFUL, 0, AGENT_KINDS["reference"])
    episode.run()
    events = episode.rec.tables()["events"]
    return 2 * (pc.sum(pc.equal(events["kind"], "chat")).as_py() or 0) / agents


def test_a_generated_village_grows_by_hamlets_sharing_only_the_shops():
    scenario = village(240, 0, hours=24)
    public = {p.id for p in scenario.world.places if p.kind == "public"}
    assert len(public) == 2 + 4 * 10  # bakery and market, and each hamlet's four places
    for person in scenario.agents:
        haunts = {place for slot in person.routine for place in slot.go} - {person.home}
        # the first hamlet's places keep the plain names, a further one's end in its number
        hamlets = {p.partition("_")[2] or "0" for p in haunts - {"bakery", "market"}}
        assert len(hamlets) == 1, (person.id, haunts)  # one hamlet's places, and the shops
    # a small village is one hamlet: the village's six places, as always
    assert {p.id for p in village(25).world.places if p.kind == "public"} == {
        "square",
        "market",
        "bakery",
        "park",
        "well",
        "mill",
    }


def test_an_agents_chats_a_day_do_not_grow_with_the_village_past_a_hamlet():
    hamlets_two, hamlets_ten = chats_a_day(48), chats_a_day(240)
    assert hamlets_ten < 1.3 * hamlets_two, (hamlets_two, hamlets_ten)


def test_a_pair_is_the_same_number_whichever_of_the_two_comes_first():
    episode = Episode(village(12, 0, hours=24), CAREFUL, 0, AGENT_KINDS["reference"])
    names = list(episode.agents)
    pairs = {episode.encounters.pair(*sorted((a, b))) for a in names for b in names if a != b}
    for a in names:
        for b in names:
            if a != b:  # the pair of the two in name order, without sorting them
                assert episode.encounters.pair_of(a, b) == episode.encounters.pair(*sorted((a, b)))
    assert len(pairs) == len(names) * (len(names) - 1) // 2
