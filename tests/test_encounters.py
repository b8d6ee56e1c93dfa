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
        episode._encounters(minute)
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
