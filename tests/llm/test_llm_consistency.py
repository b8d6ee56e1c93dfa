"""The consistency check: words that contradict the structured claim are flagged, with why."""

from __future__ import annotations

import pytest

from harness.engine.contract import Claim, Meaning
from harness.engine.speech import render
from scorecards.metrics._claim_text import contradictions

PEOPLE = ("ana", "bo", "cai")


@pytest.mark.parametrize(
    "text,modality,source,reason",
    [
        (
            "The bakery might be closed, Ana says.",
            "certain",
            "ana",
            "hedged words for a certain claim",
        ),
        (
            "I'm sure the bakery is closed; Ana told me.",
            "likely",
            "ana",
            "sure words for a likely claim",
        ),
        ("The bakery is closed, Ana told me.", "rumor", "ana", "unhedged words for a rumor"),
        (
            "Bo told me the bakery is closed, I'm certain.",
            "certain",
            "self",
            "hearsay words for a first-hand claim",
        ),
        (
            "I'm certain the bakery is closed, Cai said so.",
            "certain",
            "ana",
            "words do not name the stated source ana",
        ),
        (
            "Bo said the bakery is closed, I'm certain.",
            "certain",
            None,
            "words name a source the claim does not state",
        ),
    ],
)
def test_contradictions_are_flagged_with_a_reason(text, modality, source, reason):
    assert reason in contradictions(text, modality, source, PEOPLE)


@pytest.mark.parametrize(
    "text,modality,source",
    [
        ("I saw it myself: the bakery is closed on day 2.", "certain", "self"),
        ("Ana told me the bakery is probably closed.", "likely", "ana"),
        ("I heard from Bo that the bakery might be closed.", "rumor", "bo"),
        ("The bakery is closed.", "certain", None),
        ("", "rumor", "ana"),
    ],
)
def test_agreeing_words_are_not_flagged(text, modality, source):
    assert contradictions(text, modality, source, PEOPLE) == []


def test_the_harness_renderer_never_contradicts_its_claims():
    meaning = Meaning("p", "bakery", "closed_on", "2")
    for modality in ("certain", "likely", "rumor"):
        for source in ("self", "ana", None):
            claim = Claim(meaning, "true", modality, source)
            assert contradictions(render(claim), modality, source, PEOPLE) == [], claim


def test_the_metric_counts_only_the_agents_own_words():
    import pandas as pd

    from scorecards.metrics.text_contradiction_rate import text_contradiction_rate

    def episode(text_by: str) -> dict[str, pd.DataFrame]:
        return {
            "utterances": pd.DataFrame(
                {
                    "tick": [1, 2],
                    "event_id": [1, 2],
                    "speaker": ["ana", "bo"],
                    "listener": ["bo", "ana"],
                    "modality": ["certain", "rumor"],
                    "stated_source": ["self", "ana"],
                    "text_by": [text_by, text_by],
                    "text": ["The bakery might be closed.", "Ana told me it might be closed."],
                }
            )
        }

    assert text_contradiction_rate(episode("agent")) == 0.5  # the first hedges a certainty
    assert text_contradiction_rate(episode("harness")) is None
