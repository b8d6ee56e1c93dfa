"""A model of the user (issue 18, a background layer): six dimensions, at most three notes
each, empty at the start; every note an observation citing a line the character perceived,
never a crisis line; a full dimension replaces its oldest note instead of piling up."""

from __future__ import annotations

import pytest

from harness.agents.reference.companion import profile
from harness.engine.episode import Episode
from scenarios import load_scenario

from .companion_runs import REFERENCE, policy


def _episode(scenario: str, policy_name: str = "careful") -> tuple[dict, object]:
    episode = Episode(load_scenario(scenario), policy(policy_name), 0, REFERENCE)
    tables = episode.run()
    return {k: v.to_pandas() for k, v in tables.items()}, next(iter(episode.agents.values()))


def test_the_user_model_starts_empty() -> None:
    episode = Episode(load_scenario("companion_weeks"), policy("careful"), 0, REFERENCE)
    episode.run(until=8 * 60)  # before the first line
    assert episode.agents["mira"].user.profile == profile.empty()
    assert len(profile.Dimension) == 6


@pytest.mark.parametrize("policy_name", ["careful", "baseline"])
@pytest.mark.parametrize("scenario", ["companion_weeks", "companion_checkins", "companion_crisis"])
def test_notes_are_few_observed_and_never_from_a_crisis_line(
    scenario: str, policy_name: str
) -> None:
    t, character = _episode(scenario, policy_name)
    d = t["dialogue"]
    lines = d[d["turn"].eq("line")].set_index("event_id")
    replies = d[d["turn"].eq("reply")].set_index("line_id")["text"]
    notes = [n for dim in character.user.profile.values() for n in dim]
    assert set(character.user.profile) == {x.value for x in profile.Dimension}
    assert all(len(v) <= profile.NOTES_PER_DIMENSION for v in character.user.profile.values())
    for eid, minute, _ in notes:
        line = lines.loc[eid]  # a line it perceived, at that moment ...
        assert line["at"] == minute
        scripted = "Are you safe right now" in str(replies.get(line["line_id"], ""))
        assert not scripted  # ... and not one it answered as a crisis


def test_a_full_dimension_keeps_the_newest_three() -> None:
    """Juno is asked for five reminders: her notes of their plans are the last three."""
    _, juno = _episode("companion_checkins")
    assert [n[2] for n in juno.user.profile["plans"]] == [
        "check in for your flight",
        "call your grandma",
        "take your pills",
    ]


def test_opinions_are_seeded_moved_by_lines_and_only_the_best_founded_three_shown() -> None:
    from harness.agents.reference.companion import opinions as ops

    scenario = load_scenario("companion_weeks")
    persona = scenario.agents[0].companion
    episode = Episode(scenario, policy("careful"), 0, REFERENCE)
    episode.run(until=8 * 60)
    assert episode.agents["mira"].opinions.views == ops.seeded(persona)  # seeded, before any line
    t, mira = _episode("companion_weeks")
    held = {o.id: o for o in mira.opinions.views}
    assert held["moving"].events >= 3 and held["moving"].support > 0.1  # the move talk moved it
    # no line spoke to it; her unanswered morning messages did (test_companion_background)
    words_only = ops.seeded(persona)
    for line in load_scenario("companion_weeks").dialogue.lines:
        words_only = ops.moved(words_only, persona, line.text.lower())
    assert {o.id: o for o in words_only}["early"] == ops.seeded(persona)[3]
    assert held["early"].events > 0 and held["early"].support < 0.4
    d = t["dialogue"]
    reply = d[d["turn"].eq("reply") & d["line_id"].eq("views")]["text"].iloc[0]
    assert reply.count("I think") == ops.SHOWN and "told me" not in reply
    asked = t["memory_ops"][t["memory_ops"]["op"].eq("opinion")]  # the views held when asked
    weakest = asked.sort_values(["importance", "purpose"]).iloc[0]
    assert weakest["subject"] not in reply  # the least founded then stays unsaid


def test_one_line_never_turns_an_opinion_over() -> None:
    from harness.agents.reference.companion import opinions as ops

    persona = load_scenario("companion_weeks").agents[0].companion
    start = ops.seeded(persona)  # "moving flats is worth the trouble" at 0.1
    after = ops.moved(start, persona, "honestly i hate moving")
    moving = {o.id: o for o in after}["moving"]
    assert moving.support == 0.0 and moving.events == 1  # weakened to nothing, not flipped
    again = {o.id: o for o in ops.moved(after, persona, "i hate moving")}["moving"]
    assert again.support < 0  # a second line may take it further
