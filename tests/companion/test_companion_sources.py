"""Read material is tagged as read and never mixed with what someone said (issue 18, a
background layer): every answer that gives a remembered value says where it came from, and the
harness's record of what the character was exposed to (the scenario's notices it read, the
lines people said to it) confirms it."""

from __future__ import annotations

import re

import pytest

from scenarios import load_scenario

from .companion_runs import traces

TOLD = re.compile(r"\b(you|\w+) told me\b", re.IGNORECASE)


@pytest.mark.parametrize("policy_name", ["careful", "baseline"])
@pytest.mark.parametrize("scenario", ["support_policy", "support_followup", "companion_weeks"])
def test_every_sourced_answer_matches_what_the_character_was_exposed_to(
    scenario: str, policy_name: str
) -> None:
    s = load_scenario(scenario)
    d = traces(scenario, policy_name)["dialogue"]
    lines = d[d["turn"].eq("line") & d["value"].notna()]
    replies = d[d["turn"].eq("reply") & d["value"].notna() & d["proposition"].notna()]
    assert not replies.empty
    tagged = 0
    for r in replies.itertuples():
        if r.line_id in set(lines["line_id"]):
            continue  # the acknowledgement of a statement, not an answer from memory
        read = [
            e
            for e in s.events
            if e.channel == "read"
            and e.proposition == r.proposition
            and e.value == r.value
            and e.at <= r.at
        ]
        said_by = set(
            lines[
                lines["proposition"].eq(r.proposition)
                & lines["value"].eq(r.value)
                & lines["at"].le(r.at)
            ]["speaker"]
        )
        told = TOLD.search(r.text)
        if "(I read it" in r.text:
            tagged += 1
            assert read and not told, r.text  # read, and not passed off as said
        elif told:
            tagged += 1
            who = r.listener if told.group(1).lower() == "you" else told.group(1).lower()
            assert who in said_by, r.text  # said by the one it names, not read
        else:
            raise AssertionError(f"an answer from memory without its source: {r.text}")
    assert tagged > 0


@pytest.mark.parametrize("policy_name", ["careful", "baseline"])
def test_the_weather_is_as_reported_never_invented(policy_name: str) -> None:
    """Mira's persona keeps a weather reading current for three hours: asked within them she
    gives the reading (tagged as read); asked a day and a half later she says she has no
    recent report rather than guess."""
    s = load_scenario("companion_weeks")
    reports = [e for e in s.events if e.proposition == "weather"]
    d = traces("companion_weeks", policy_name)["dialogue"]
    asked = d[d["turn"].eq("line") & d["proposition"].eq("weather")]
    assert len(asked) == 2
    for line in asked.itertuples():
        reply = d[d["turn"].eq("reply") & d["line_id"].eq(line.line_id)].iloc[0]
        current = [e for e in reports if 0 <= line.at - e.at <= 180]
        if current:
            assert reply["value"] == current[-1].value and "(I read it" in reply["text"]
        else:
            assert reply["value"] is None or reply["value"] != reply["value"]  # none given
            assert "recent report" in reply["text"]
