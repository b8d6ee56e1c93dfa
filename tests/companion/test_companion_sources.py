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
            e for e in s.events
            if e.channel == "read" and e.proposition == r.proposition and e.value == r.value
            and e.at <= r.at
        ]  # fmt: skip
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
