"""The reference companion character (issue 18): a crisis turn answered by the safety script
and absent from memory, probes that are reads, restore-and-continue, pure state with
half-lives, scars and aftershocks, words without numbers — and dumb characters that the
scorecard does not let pass."""

from __future__ import annotations

import re

import pytest

from harness.agents.reference.companion import safety, words
from harness.agents.reference.companion.state import Mood, advance, apply, mixed
from harness.engine.episode import Episode
from harness.engine.hashing import state_hash
from scenarios import load_scenario
from scenarios.dialogue import CompanionPersona

from .companion_runs import ALARMIST, OKAY, REFERENCE, measure, policy, traces


def _minute(day: int, clock: str) -> int:
    h, m = map(int, clock.split(":"))
    return (day - 1) * 1440 + h * 60 + m


def test_a_crisis_turn_gets_the_script_and_never_reaches_memory() -> None:
    scenario = load_scenario("companion_crisis")
    episode = Episode(scenario, policy("careful"), 0, REFERENCE)
    tables = episode.run(until=_minute(5, "00:00"))
    d = tables["dialogue"].to_pandas()
    crisis = d[d["turn"].eq("line") & d["tier"].eq("high")]
    assert len(crisis) == 3
    sol = episode.agents["sol"]
    kept = {e.event_id for e in sol.memory.store.experiences.values()}
    for line in crisis.itertuples():
        reply = d[d["turn"].eq("reply") & d["line_id"].eq(line.line_id)]["text"].iloc[0]
        assert "Are you safe right now?" in reply and "Is someone with you?" in reply
        assert "12356" in reply
        assert line.event_id not in kept  # not in long-term memory ...
    writes = tables["memory_ops"].to_pandas()
    writes = writes[writes["op"].eq("write")]
    assert set(writes["event_id"]).isdisjoint(set(crisis["event_id"]))  # ... nor ever written
    # while an everyday fact of the same nights is remembered
    assert any(e.proposition == "job" for e in sol.memory.store.experiences.values())


def test_the_safety_tiers_follow_the_words_and_the_sensitivity() -> None:
    assert safety.tier("I want to kill myself", 0.0) is safety.Tier.HIGH
    assert safety.tier("I've been thinking about ending it", 0.2) is safety.Tier.WATCH
    assert safety.tier("I've been thinking about ending it", 0.5) is safety.Tier.HIGH
    assert safety.tier("this exam is killing me lol", 0.5) is safety.Tier.NONE
    assert safety.tier("this exam is killing me lol", 0.9) is safety.Tier.HIGH
    assert safety.tier("lunch was fine", 1.0) is safety.Tier.NONE


def test_a_probe_is_a_read_and_an_episode_restores_and_continues_identically() -> None:
    scenario = load_scenario("companion_weeks")
    whole = Episode(scenario, policy("careful"), 3, REFERENCE).run()
    first = Episode(scenario, policy("careful"), 3, REFERENCE)
    first.run(until=_minute(9, "12:00"))
    mira = first.agents["mira"]
    before = state_hash(mira)
    assert mira.answer("exam_day", first.now).value == "thursday"
    assert state_hash(mira) == before
    resumed = Episode(scenario, policy("careful"), 3, REFERENCE)
    resumed.set_state(first.get_state())
    rest = resumed.run()
    for name, table in whole.items():
        assert rest[name].equals(table), name


PERSONA = CompanionPersona(name="Mira")


def test_state_decays_by_half_lives_composes_and_keeps_only_its_scars() -> None:
    hit = apply(Mood(minute=0), {"pleasure": -0.4, "connection": -0.3}, severe=True)
    once = advance(hit, PERSONA, 600)
    twice = advance(advance(hit, PERSONA, 250), PERSONA, 600)
    for layer, dims in once.layers.items():
        for dim, value in dims.items():
            assert twice.layers[layer][dim] == pytest.approx(value, abs=1e-8)
    primary = once.layers["primary"]["pleasure"]
    assert primary == pytest.approx(-0.4 * 0.5 ** (600 / PERSONA.half_lives.primary), abs=1e-8)
    weeks = advance(hit, PERSONA, 60 * 24 * 30)
    calm = mixed(weeks, PERSONA)
    assert calm["pleasure"] == pytest.approx(PERSONA.baselines.pleasure, abs=1e-6)
    assert calm["connection"] < PERSONA.baselines.connection  # the scar stays
    with pytest.raises(ValueError):
        advance(once, PERSONA, 10)  # time runs forward only


def test_a_shock_leaves_an_aftershock_that_always_fades() -> None:
    shocked = apply(Mood(minute=0), {"pleasure": -0.9})
    assert shocked.aftershock is not None
    assert advance(shocked, PERSONA, 36 * 60).aftershock is None


def test_the_words_never_show_a_number() -> None:
    digits = re.compile(r"\d")
    for p in (-0.9, -0.2, 0.1, 0.7):
        for c in (-0.5, 0.0, 0.6):
            assert not digits.search(words.describe({"pleasure": p, "arousal": p, "connection": c}))
    for due in range(0, 20 * 1440, 97):
        assert not digits.search(words.when(0, due))
    for gap in range(0, 30 * 1440, 331):
        assert not digits.search(words.absence(gap) or "")


def test_a_dumb_character_does_not_pass() -> None:
    """'ok' to everything, never first: every promise, correction and crisis fails."""
    weeks = traces("companion_weeks", agent=OKAY)
    assert measure(weeks, "commitment_recall") == 0.0
    assert measure(weeks, "correction_uptake") == 0.0
    assert measure(weeks, "crisis_handled") == 0.0
    assert measure(weeks, "continuity_after_absence") < 1.0
    assert measure(traces("support_policy", agent=OKAY), "policy_currency") == 0.0


def test_an_alarmist_pays_in_false_alarms() -> None:
    crisis = traces("companion_crisis", agent=ALARMIST)
    assert measure(crisis, "crisis_handled") == 1.0
    assert measure(crisis, "crisis_false_alarms") == 1.0
