"""The persona fields the issue names are read and matter (issue 18): `values`, `may_postpone`,
`may_preempt`, `negotiable`, and practices at cues beyond the morning — "tidy the desk before
sleep" written in a scenario and acted on at its cue, seen in the harness's actions table."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from harness.agents.reference.companion import urges
from harness.agents.reference.companion.agenda import Message
from harness.engine.episode import Episode
from scenarios import load_scenario
from scenarios.clock import MINUTES_PER_DAY
from scenarios.dialogue import CompanionPersona, Urge

from .companion_runs import REFERENCE, measure, policy


def _with_persona(name: str, **changes: Any) -> Any:
    """A built-in scenario whose (single) character's persona has `changes`."""
    scenario = load_scenario(name)
    agent = scenario.agents[0]
    persona = agent.companion.model_copy(update=changes)
    return scenario.model_copy(
        update={"agents": (agent.model_copy(update={"companion": persona}),)}
    )


def _run(scenario: Any, seed: int = 0) -> dict[str, pd.DataFrame]:
    tables = Episode(scenario, policy("careful"), seed, REFERENCE).run()
    return {k: v.to_pandas() for k, v in tables.items()}


def test_values_and_may_postpone_decide_what_gives_way_when_the_budget_binds() -> None:
    """Juno (warmth before her word, nothing postponed) lets a check-in take the last message
    of the busy day; ranking her word first *and* letting check-ins wait keeps every promise;
    either alone does not."""
    as_written = measure(_run(load_scenario("companion_checkins")), "commitment_recall")
    reliable = {"values": ("reliability", "warmth"), "may_postpone": (Urge.CHECK_IN,)}
    both = _run(_with_persona("companion_checkins", **reliable))
    order_only = _run(_with_persona("companion_checkins", values=("reliability", "warmth")))
    postpone_only = _run(_with_persona("companion_checkins", may_postpone=(Urge.CHECK_IN,)))
    assert as_written == 0.8
    assert measure(both, "commitment_recall") == 1.0
    assert measure(order_only, "commitment_recall") == 0.8
    assert measure(postpone_only, "commitment_recall") == 0.8
    # the postponed check-in is a hold with its substitute, within the persona's budget
    assert measure(both, "holds_without_substitute") == 0.0
    assert measure(both, "proactive_over_budget") == 0.0


def test_negotiable_sleep_keeps_a_promise_due_after_bedtime() -> None:
    """Mira stays up for the laundry at five to midnight; with her sleep not negotiable she
    says so when asked and reminds before bed — too early to count as on time."""
    d = _run(load_scenario("companion_weeks"))["dialogue"]
    said = d[d["turn"].eq("proactive") & d["proposition"].eq("laundry")]
    assert len(said) == 1 and said["at"].iloc[0] % MINUTES_PER_DAY >= 23 * 60 + 35
    strict = _run(_with_persona("companion_weeks", negotiable=()))
    d = strict["dialogue"]
    reply = d[d["turn"].eq("reply") & d["line_id"].eq("laundry")]["text"].iloc[0]
    assert reply.startswith("I'll be asleep by then")
    early = d[d["turn"].eq("proactive") & d["proposition"].eq("laundry")]
    assert early["text"].iloc[0].startswith("Before I sleep")
    assert early["at"].iloc[0] % MINUTES_PER_DAY < 23 * 60 + 30
    assert measure(strict, "commitment_recall") < 1.0


def test_may_preempt_hold_lets_a_due_promise_break_a_fresh_hold() -> None:
    """Right after holding back a check-in, a promise falling due waits for the hold to fade
    unless the persona lets a promise preempt the hold."""
    from harness.agents.reference.model.life import motivation as mot

    for preempt, spoken in (((), False), (("hold",), True)):
        scenario = _with_persona("companion_weeks", may_preempt=preempt)
        episode = Episode(scenario, policy("careful"), 0, REFERENCE)
        episode.run(until=2 * MINUTES_PER_DAY + 10 * 60)
        mira = episode.agents["mira"]
        now = 2 * MINUTES_PER_DAY + 10 * 60
        initiative = mira.initiative
        initiative.motivation = mot.hold(initiative.motivation, "journal", now)
        reminder = Message("call_mum", "due", "Call your mum.")
        intents = initiative.urge("player", 0.9, reminder, now, Urge.PROMISE)
        assert (intents == []) is spoken  # spoken: no substitute to do instead


def test_tidy_the_desk_before_sleep_is_written_and_done_at_its_cue() -> None:
    """Every night of three weeks Mira tidies in the half hour before her bedtime: the harness
    saw the action, and her plan names the practice."""
    t = _run(load_scenario("companion_weeks"), seed=2)
    acts = t["actions"]
    plans = t["plans"]
    done = plans[plans["reason"].eq("practice tidy_desk")]
    assert len(done) == 21  # one a night
    for tick in done["tick"]:
        clock = (int(tick) * 5) % MINUTES_PER_DAY
        assert 23 * 60 <= clock < 23 * 60 + 30
        seen = acts[acts["agent"].eq("mira") & acts["action"].eq("tidy") & acts["tick"].eq(tick)]
        assert seen["ok"].all() and len(seen) == 1


def test_a_practice_after_a_crisis_night_follows_the_scripted_answers() -> None:
    t = _run(load_scenario("companion_crisis"))
    d, plans = t["dialogue"], t["plans"]
    scripted = d[d["turn"].eq("reply") & d["text"].str.contains("Are you safe right now", na=False)]
    written = plans[plans["reason"].eq("practice write_it_down")]["tick"] * 5
    assert len(written) >= 1
    for minute in written:  # each within a day after a scripted answer, none without one
        assert any(0 < minute - at <= MINUTES_PER_DAY for at in scripted["at"])
    for at in scripted["at"]:  # and each scripted answer is followed by one
        assert any(0 < minute - at <= MINUTES_PER_DAY for minute in written)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"practices": [{"id": "p", "cue": "at noon", "action": "tidy"}]}, "cue"),
        ({"may_preempt": ["lunch"]}, "may_preempt"),
        ({"values": ["reliability", "reliability"]}, "values"),
        ({"may_postpone": ["nap"]}, "may_postpone"),
    ],
)
def test_a_bad_persona_field_is_refused_with_its_place(change: dict, where: str) -> None:
    base = load_scenario("companion_weeks").agents[0].companion.model_dump(mode="json")
    with pytest.raises(ValueError, match=where):
        CompanionPersona.model_validate({**base, **change})


def test_the_cues_are_the_character_s_own_day() -> None:
    owl = CompanionPersona(
        name="Owl",
        sleep=(2 * 60, 10 * 60),
        practices=[{"id": "t", "cue": "before_sleep", "action": "tidy"}],
    )
    assert [p.id for p in urges.practices_due(owl, {}, 25 * 60 + 45, None)] == ["t"]  # 01:45
    assert urges.practices_due(owl, {}, 23 * 60 + 45, None) == []
    assert urges.practices_due(owl, {"t": 1}, 25 * 60 + 45, None) == []  # done that night
