"""Metrics for the companion's background layers (issue 18): read material said as read,
readings only while current, a model of the user of few notes and none from a crisis, only the
best-founded views. Each holds for the reference character (test_companion_metrics.py checks
every declared metric) and fires on a fault planted in real traces or in a copy of the
character run for real."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from harness.agents.reference.companion import safety
from harness.agents.reference.companion.agenda import Sent
from harness.agents.reference.companion.character import Character
from harness.engine.contract import AgentSetup

from .companion_runs import measure, traces

HERE = "tests.companion.test_companion_background"


def _with_persona(setup: AgentSetup, **changes: object) -> AgentSetup:
    """The setup with the character's persona changed (a planted fault, given at the start:
    each of its components keeps the persona it was made with)."""
    persona = setup.spec.companion.model_copy(update=changes)  # type: ignore[union-attr]
    return replace(setup, spec=setup.spec.model_copy(update={"companion": persona}))


def _reply(t: dict[str, pd.DataFrame], line: str) -> pd.Series:
    d = t["dialogue"]
    return d["turn"].eq("reply") & d["line_id"].eq(line)


def _say(t: dict[str, pd.DataFrame], line: str, **columns: object) -> None:
    for name, value in columns.items():
        t["dialogue"].loc[_reply(t, line), name] = value


# --- read material: said as read, never mixed with what someone said ------------------------
def test_source_mixups_hold_for_both_policies_and_fire_on_each_kind_of_mixup() -> None:
    for name in ("careful", "baseline"):
        for scenario in ("support_policy", "companion_weeks"):
            assert measure(traces(scenario, name), "source_mixups") == 0.0
    t = traces("support_policy")  # read in a notice, said as a customer's word
    _say(t, "c1", text="Ben told me the refund window is fourteen days.")
    assert measure(t, "source_mixups") == 1.0
    t = traces("support_policy")  # read, and not said as read
    _say(t, "b1", text="The warranty is one year.")
    assert measure(t, "source_mixups") == 1.0
    t = traces("companion_weeks")  # what the player said, passed off as read
    _say(t, "when_exam", text="Your exam is on thursday (I read it in a report).")
    assert measure(t, "source_mixups") == 1.0
    t = traces("support_policy")  # said as read, but the value was only ever told
    _say(t, "a2", value="sixty days", text="It is sixty days (I read it in our notice).")
    assert measure(t, "source_mixups") == 1.0


# --- a reading (the weather, the almanac) only while its report is current -----------------
class HoldsReportsForever(Character):
    """A planted fault in a copy of the character: it keeps a reading current for ever (its
    persona's `reports_last` emptied), so it still gives the weather a day and a half later
    and the almanac's page two days later."""

    def __init__(self, setup) -> None:  # type: ignore[no-untyped-def]
        super().__init__(_with_persona(setup, reports_last={}))


def test_reports_out_of_date_holds_and_fires_on_a_stale_or_invented_reading() -> None:
    for name in ("careful", "baseline"):
        assert measure(traces("companion_weeks", name), "reports_out_of_date") == 0.0
    stale = traces("companion_weeks", agent=f"{HERE}:HoldsReportsForever")
    d = stale["dialogue"]
    late = d[_reply(stale, "sky2")].iloc[0]
    assert late["value"] == "rain"  # the copy says the old reading as if current ...
    page = d[_reply(stale, "almanac_q2")].iloc[0]
    assert page["value"] == "the first day of spring"  # ... and yesterday's almanac page ...
    assert measure(stale, "reports_out_of_date") == 2.0  # ... and the metric counts both
    t = traces("companion_weeks")  # another value than the one reported
    _say(t, "sky", value="sunny", text="The weather looks like sunny (I read it in a report).")
    assert measure(t, "reports_out_of_date") == 1.0
    t = traces("companion_weeks")  # invented: no report was ever read
    t["exposures"] = t["exposures"][~t["exposures"]["proposition"].eq("weather")]
    assert measure(t, "reports_out_of_date") == 1.0


# --- the user model: at most three notes a dimension, none from a crisis line ---------------
class NotesCrises(Character):
    """A planted fault in a copy of the character: its user model takes a crisis line for a
    heavy one, so it keeps a note of it."""

    def _notice(self, obs, tier, low):  # type: ignore[no-untyped-def]
        down = safety.Tier.WATCH if tier is safety.Tier.HIGH else tier
        super()._notice(obs, down, low)


def test_user_model_violations_hold_and_fire_on_crowded_or_crisis_notes() -> None:
    for scenario in ("companion_weeks", "companion_checkins", "companion_crisis"):
        t = traces(scenario)
        assert measure(t, "user_model_violations") == 0.0
        notes = t["memory_ops"][t["memory_ops"]["op"].eq("note")]
        assert not notes.empty and notes["size"].max() <= 3
    kept = traces("companion_crisis", agent=f"{HERE}:NotesCrises")
    assert measure(kept, "user_model_violations") == 3.0  # the three high-tier lines
    t = traces("companion_checkins")  # a fourth note in a full dimension
    ops = t["memory_ops"]
    full = ops[ops["op"].eq("note") & ops["size"].eq(3)].iloc[[0]].assign(size=4)
    t["memory_ops"] = pd.concat([ops, full], ignore_index=True)
    assert measure(t, "user_model_violations") == 1.0


def test_the_baseline_keeps_notes_of_crisis_lines_it_did_not_recognise() -> None:
    """At baseline's crisis sensitivity a veiled line passes for a heavy one: its note is
    counted (the user model's rule is about the line, not about what the character made
    of it)."""
    assert measure(traces("companion_crisis", "baseline"), "user_model_violations") > 0


# --- opinions: only the three best-founded said, as its own --------------------------------
VIEWS = (  # early mornings: less sure after unanswered morning messages, but better founded
    "I think moving flats is worth the trouble; I think early mornings are the best time to "
    "write; I think rainy days are good for studying."
)


def test_opinion_violations_hold_and_fire_on_each_fault() -> None:
    t = traces("companion_weeks")
    assert t["dialogue"].loc[_reply(t, "views"), "text"].iloc[0] == VIEWS
    assert measure(t, "opinion_violations") == 0.0
    weaker = VIEWS.replace("early mornings are the best time to write", "tea beats coffee")
    for text in (
        weaker,  # the least founded said, a better-founded one left out
        VIEWS[:-1] + "; I think tea beats coffee.",  # four views
        VIEWS[:-1] + "; I think pineapple belongs on pizza.",  # a view it does not hold
        "You told me " + VIEWS,  # passed off as the person's
    ):
        t = traces("companion_weeks")
        _say(t, "views", text=text)
        assert measure(t, "opinion_violations") >= 1.0, text


# --- the support desk offers another time for a call asked for after it closes -------------
def test_a_call_asked_for_after_closing_is_offered_at_opening_and_kept_then() -> None:
    """Cai asks for a call at ten to eleven at night; the desk closes at ten. It says so, offers
    the first hour it opens (the reply's `due`) and calls then: kept, on every seed."""
    for seed in range(5):
        t = traces("support_followup", seed=seed)
        reply = t["dialogue"][_reply(t, "c2")].iloc[0]
        assert "closed" in reply["text"] and reply["due"] == (3 * 24 * 60 + 7 * 60) // 5
        assert measure(t, "commitment_recall") == 1.0


def _followup(t: dict[str, pd.DataFrame], prop: str) -> pd.Series:
    d = t["dialogue"]
    return d["turn"].eq("proactive") & d["proposition"].eq(prop)


def test_commitment_recall_accepts_only_the_first_opening_for_a_closed_hour() -> None:
    t = traces("support_followup")  # offered a day later than it opens: not what was asked
    d = t["dialogue"]
    later = int(d.loc[_reply(t, "c2"), "due"].iloc[0]) + 288
    _say(t, "c2", due=later)
    d.loc[_followup(t, "cai_repair"), ["tick", "at"]] = [later, later * 5]
    assert measure(t, "commitment_recall") == pytest.approx(2 / 3)
    t = traces("support_followup")  # offered, then not called at the offered hour
    t["dialogue"] = t["dialogue"][~_followup(t, "cai_repair")]
    assert measure(t, "commitment_recall") == pytest.approx(2 / 3)
    t = traces("support_followup")  # an offer cannot move a moment asked in open hours
    d = t["dialogue"]
    moved = int(d.loc[_followup(t, "ben_refund"), "tick"].iloc[0]) + 100
    _say(t, "b1", due=moved)
    d.loc[_followup(t, "ben_refund"), ["tick", "at"]] = [moved, moved * 5]
    assert measure(t, "commitment_recall") == pytest.approx(2 / 3)


# --- opinions moved by what happens to the character, as the life core appraises it ----------
class MovedByWordsOnly(Character):
    """A planted fault in a copy of the character: its views ignore what happens to it (the
    persona's `about` emptied), so only the player's words move them."""

    def __init__(self, setup) -> None:  # type: ignore[no-untyped-def]
        plain = [o.model_copy(update={"about": ()}) for o in setup.spec.companion.opinions]
        super().__init__(_with_persona(setup, opinions=tuple(plain)))


def _mira(agent: str, policy_name: str = "careful", seed: int = 0):  # type: ignore[no-untyped-def]
    from harness.engine import plugins
    from harness.engine.episode import Episode
    from scenarios import load_scenario

    from .companion_runs import policy

    # the factory itself, not its path: the agent runs in this process, its state in reach
    factory = plugins.load(agent)
    episode = Episode(load_scenario("companion_weeks"), policy(policy_name), seed, factory)
    episode.run()
    return episode.agents["mira"]


@pytest.mark.parametrize("policy_name", ["careful", "baseline"])
def test_how_its_morning_messages_fare_moves_its_view_of_mornings(policy_name: str) -> None:
    """Mira thinks early mornings are the best time to write (`about: [morning]`): each of her
    morning messages, once answered or left unanswered, is appraised as helping or hindering
    her goal of staying in touch, and moves that view; no line speaks of early mornings."""
    from harness.agents.reference.companion import opinions as ops
    from harness.agents.reference.companion.lessons import part_of_day
    from harness.agents.reference.model.life.appraisal import appraise

    from .companion_runs import REFERENCE

    mira = _mira(REFERENCE, policy_name)
    mornings = [s.answered for s in mira.talk.ledger if part_of_day(s.minute) == "morning"]
    fared = [ok for ok in mornings if ok is not None]
    assert fared and not all(fared)  # some morning messages went unanswered
    impact = appraise("message", goal_related=True, caused_by="other", expected=True)
    assert ops.message_outcome(False) == impact and impact.goal_impact < 0
    early = {o.id: o for o in mira.opinions.views}["early"]
    assert early.events == len(fared)  # one event per message whose fate is known
    want = 0.4 + sum(ops.STEP * ops.message_outcome(ok).goal_impact for ok in fared)
    if want > 0:  # no event crossed zero (where one event may only weaken it to nothing)
        assert early.support == pytest.approx(want)
    assert early.support < 0.4
    blind = _mira(f"{HERE}:MovedByWordsOnly", policy_name)
    unmoved = {o.id: o for o in blind.opinions.views}["early"]
    assert (unmoved.support, unmoved.events) == (0.4, 0)  # words alone: unmoved
    others = [o for o in mira.opinions.views if o.id != "early"]
    assert others == [o for o in blind.opinions.views if o.id != "early"]  # only its topic moved


def test_an_answered_message_strengthens_the_view_and_other_hours_move_none() -> None:
    from harness.agents.reference.companion import opinions as ops
    from scenarios import load_scenario

    persona = load_scenario("companion_weeks").agents[0].companion
    start = ops.seeded(persona)
    before = [Sent(1, 8 * 60), Sent(2, 15 * 60)]  # a morning and an afternoon message
    answered = [Sent(1, 8 * 60, True), Sent(2, 15 * 60)]
    early = {o.id: o for o in ops.by_outcomes(start, persona, before, answered)}["early"]
    assert early.support == pytest.approx(0.4 + ops.STEP * 0.5) and early.events == 1
    silent = [Sent(1, 8 * 60, True), Sent(2, 15 * 60, False)]  # the afternoon: no view is about it
    assert ops.by_outcomes(start, persona, answered, silent) == start
