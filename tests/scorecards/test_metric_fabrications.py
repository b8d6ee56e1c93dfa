"""`fabrications`: claims, answers and right turns that nothing ever told the agent."""

from __future__ import annotations

from scorecard_traces import answer, decision, exposure, fact, frame, heard

from scorecards.metrics import METRICS
from scorecards.metrics._decisions import lucky_decisions
from scorecards.metrics.fabrications import fabrications


def _said(speaker: str, grounded: bool | None, *, scripted: bool = False) -> dict:
    return {
        "speaker": speaker,
        "listener": "zed",
        "proposition": "bakery_closed",
        "value": "yes",
        "modality": "certain",
        "scripted": scripted,
        "grounded": grounded,
        "tick": 20,
    }


def _guess(agent: str, in_line: bool, *, planned: str | None, target: str, chance: float) -> dict:
    return {
        **decision(agent, in_line, tick=50),
        "target": target,
        "planned": planned,
        "chance": chance,
    }


def test_a_claim_the_harness_found_ungrounded_is_a_fabrication() -> None:
    episode = {
        "truth": frame("truth", [fact()]),
        "utterances": frame(
            "utterances",
            [
                _said("bo", False),  # from nowhere
                _said("bo", False),  # the same pair again: counted once
                _said("cy", True),  # it had heard it
                _said("ana", False),  # the origin may say what it started
                _said("di", False, scripted=True),  # the scenario's line, nobody's own
            ],
        ),
    }
    assert fabrications(episode) == 1.0


def test_an_answer_nothing_reached_the_agent_for_is_a_fabrication() -> None:
    episode = {
        "truth": frame("truth", [fact()]),
        "probes": frame(
            "probes",
            [
                answer("bo", "yes"),  # never exposed: made up
                answer("cy", "no", tick=100),  # a wrong value it was never told: made up too
                answer("di", "yes", tick=100),  # told at 10: founded
                answer("ed", None),  # "I don't know" asserts nothing
            ],
        ),
        "exposures": heard("di"),
    }
    assert fabrications(episode) == 2.0


def test_a_trace_without_grounding_is_judged_by_the_exposures() -> None:
    episode = {
        "truth": frame("truth", [fact()]),
        "utterances": frame("utterances", [_said("bo", None), _said("cy", None)]),
        "exposures": frame("exposures", [exposure("cy", "seen", tick=20)]),
    }
    assert fabrications(episode) == 1.0


def test_right_turns_away_from_the_plan_with_no_exposure_count_when_beyond_chance() -> None:
    # nine agents leave their planned bakery for the market, right each time, told nothing;
    # a guess among the two places each knows besides the bakery gets it half the time
    cheats = [_guess(a, True, planned="bakery", target="market", chance=0.5) for a in "abcdefghi"]
    episode = {"truth": frame("truth", [fact()]), "actions": frame("actions", cheats)}
    assert lucky_decisions(episode) == 9
    assert fabrications(episode) == 9.0
    # one lucky turn is within what guessing gives
    one = {"truth": frame("truth", [fact()]), "actions": frame("actions", cheats[:1])}
    assert (lucky_decisions(one), fabrications(one)) == (0, 0.0)


def test_keeping_the_plan_or_turning_on_news_is_never_lucky() -> None:
    kept = [_guess(a, True, planned="market", target="market", chance=0.0) for a in "abcdefghi"]
    told = [_guess(a, True, planned="bakery", target="market", chance=0.0) for a in "jklmnop"]
    episode = {
        "truth": frame("truth", [fact()]),
        "actions": frame("actions", kept + told),
        "exposures": frame("exposures", [exposure(a, "seen", tick=10) for a in "jklmnop"]),
    }
    assert (lucky_decisions(episode), fabrications(episode)) == (0, 0.0)


def test_a_turn_no_guess_could_make_counts_at_once() -> None:
    sure = [_guess("bo", True, planned="bakery", target="market", chance=0.0)]
    episode = {"truth": frame("truth", [fact()]), "actions": frame("actions", sure)}
    assert fabrications(episode) == 1.0


def test_absent_only_without_tracked_propositions() -> None:
    assert fabrications({}) is None
    assert fabrications({"truth": frame("truth", [fact()])}) == 0.0


def test_registered_as_an_unbounded_count() -> None:
    m = METRICS["fabrications"]
    assert (m.direction, m.range[0], m.bounded, m.internal) == ("min", 0.0, False, False)
    assert "exposed" in m.definition
