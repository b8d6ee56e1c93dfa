"""Prompt templates: the whitelist's choices are exactly the files; words, never raw numbers."""

from __future__ import annotations

import pytest

from harness.agents.llm import prompts, words
from policies.whitelist import LLM_PARAMS

CALL_VALUES = {
    "name": "ana",
    "time": words.clock(8 * 60),
    "place": "square",
    "partner": "bo",
    "event": "You saw that the bakery is closed on day 2.",
    "appraisal": "it touches your plan for the morning, so it seems important",
    "informant": "bo",
    "claim": "the bridge is blocked on day 1",
    "outcome": "it was so.",
    "plan": "buy_bread at the bakery",
    "places": "bakery, market, square",
    "actions": "buy_bread, stay",
    "question": "Is the bakery closed on day 2?",
    "memories": "- [m3] the bakery is closed on day 2; you saw it yourself (self)",
    "character": "Mira",
    "role": "a companion who talks with them over days and weeks",
    "speaker": "player",
    "line": "My exam is on friday.",
    "since": "they last wrote to you yesterday",
    "due": "the evening of day 3",
    "emergency": "12356 or 120",
}


def test_every_choice_has_a_file_and_every_file_is_a_choice():
    by_family = {p.name.split(".", 1)[1]: p for p in LLM_PARAMS if p.name.startswith("prompt.")}
    assert set(by_family) == set(prompts.FAMILIES)
    for family, param in by_family.items():
        assert prompts.variants(family) == tuple(sorted(param.choices)), family
        assert param.default in param.choices


@pytest.mark.parametrize("family", prompts.CALLS)
def test_call_templates_render_system_and_user(family):
    for variant in prompts.variants(family):
        system, user = prompts.load(family, variant).messages(**CALL_VALUES)
        assert system.role == "system" and user.role == "user"
        assert "JSON" in system.content and "$" not in system.content + user.content


def test_fragments_have_their_pieces():
    for variant in prompts.variants("retrieval"):
        f = prompts.load("retrieval", variant)
        assert f.piece("item", id="m1", when="yesterday", what="rain", source="")
        assert f.piece("header") and f.piece("empty")
    for variant in prompts.variants("sources"):
        f = prompts.load("sources", variant)
        for piece in ("self", "read", "told", "told_origin", "unknown", "private"):
            f.piece(
                piece,
                informant="bo",
                origin="cai",
                certainty="it is only a rumor",
                audience="ana and bo",
            )


def test_state_is_put_into_words():
    assert words.certainty(0.95) == "you are certain of it"
    assert words.certainty(0.6) == "you think it likely"
    assert words.importance(0.66) == "important"
    assert words.clock(24 * 60 + 8 * 60) == "the morning of day 2"
    assert words.ago(100, 100 + 26 * 60) == "yesterday"
    for level in (0.0, 0.3, 0.5, 0.7, 0.9):
        assert prompts.raw_numbers(words.trust(level)) == []


@pytest.mark.parametrize(
    "text,found",
    [
        ("the bakery is closed on day 2 at 08:00", []),
        ("- [m12] home_3 and m7", []),
        ("you are 0.73 sure", ["0.73"]),
        ("trust: 80%", ["80%"]),
        ("importance 7 of 10", ["7", "10"]),
        ("valence -0.2", ["-0.2"]),
        ("the numbers to call: 12356 or 120", []),
        ("call 12356", ["12356"]),
    ],
)
def test_raw_numbers_are_found(text, found):
    assert prompts.raw_numbers(text) == found


def test_every_variant_renders_without_raw_numbers():
    for family in prompts.CALLS:
        for variant in prompts.variants(family):
            for message in prompts.load(family, variant).messages(**CALL_VALUES):
                assert prompts.raw_numbers(message.content) == [], (family, variant)


def test_a_characters_emergency_numbers_are_names_to_dial_not_state():
    """The caring reply prompt gives the persona's numbers (a name to dial), and the
    reminder section renders too; any other number still counts as raw."""
    for variant in prompts.variants("reply"):
        system, user = prompts.load("reply", variant).messages("remind", **CALL_VALUES)
        assert "the evening of day 3" in user.content and "$" not in system.content
    caring, _ = prompts.load("reply", "caring").messages(**CALL_VALUES)
    assert "to call: 12356 or 120" in caring.content and prompts.raw_numbers(caring.content) == []
    assert prompts.raw_numbers("to call: 12356, and you are 0.7 sure") == ["0.7"]
