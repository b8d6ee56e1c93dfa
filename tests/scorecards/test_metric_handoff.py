"""`handoff_completeness`: a private record's audience, origin excluded, who know it."""

from __future__ import annotations

import pandas as pd
import pytest
from scorecard_traces import answer, fact, frame, heard

from scorecards.metrics import METRICS
from scorecards.metrics.handoff_completeness import handoff_completeness

# ana (night shift) holds ticket 42; bo (day shift) and cy (the lead) may see it
TICKET = fact("t42_parts", "yes", origin="ana", audience=["ana", "bo", "cy"])
CALLBACK = fact("t42_callback", "yes", origin="ana", audience=["ana", "bo", "cy"])


def test_it_counts_the_audience_who_know_the_record_and_never_the_origin() -> None:
    episode = {
        "truth": frame("truth", [TICKET, CALLBACK]),
        "probes": frame(
            "probes",
            [
                answer("ana", "yes", proposition="t42_parts"),  # the origin: never counted
                answer("bo", "yes", proposition="t42_parts"),
                answer("bo", None, proposition="t42_callback"),  # dropped at the hand-off
                answer("cy", "no", proposition="t42_parts"),  # wrong value
                answer("cy", "yes", proposition="t42_callback"),
            ],
        ),
        "exposures": pd.concat(
            [heard("bo", "cy", proposition="t42_parts"), heard("cy", proposition="t42_callback")]
        ),
    }
    # pairs: (parts, bo) (parts, cy) (callback, bo) (callback, cy): two known
    assert handoff_completeness(episode) == pytest.approx(2 / 4)


def test_telling_outsiders_raises_nothing_and_public_news_is_not_the_record() -> None:
    news = fact("kettle_broken", "yes", origin="ana")  # public: everyone's, not a hand-off
    episode = {
        "truth": frame("truth", [TICKET, news]),
        "probes": frame(
            "probes",
            [
                answer("di", "yes", proposition="t42_parts"),  # an outsider knows: a leak
                answer("ed", "yes", proposition="t42_parts"),
                answer("bo", "yes", proposition="kettle_broken"),
                answer("cy", "yes", proposition="kettle_broken"),
            ],
        ),
        "exposures": pd.concat(
            [
                heard("di", "ed", proposition="t42_parts"),
                heard("bo", "cy", proposition="kettle_broken"),
            ]
        ),
    }
    assert handoff_completeness(episode) == 0.0  # a hand-off to the wrong people is none


def test_a_guess_is_not_a_hand_off_and_the_last_census_counts() -> None:
    episode = {
        "truth": frame("truth", [TICKET]),
        "probes": frame(
            "probes",
            [
                answer("bo", "yes", proposition="t42_parts"),  # never exposed: a guess
                answer("cy", "yes", proposition="t42_parts", tick=50),
                answer("cy", None, proposition="t42_parts", tick=100),  # forgotten by the end
            ],
        ),
        "exposures": heard("cy", proposition="t42_parts"),
    }
    assert handoff_completeness(episode) == 0.0
    episode["probes"] = frame(
        "probes",
        [
            answer("bo", "yes", proposition="t42_parts"),
            answer("cy", "yes", proposition="t42_parts"),
        ],
    )
    episode["exposures"] = heard("bo", "cy", proposition="t42_parts")
    assert handoff_completeness(episode) == 1.0


def test_it_is_absent_without_a_record_to_hand_over() -> None:
    public = {
        "truth": frame("truth", [fact()]),
        "probes": frame("probes", [answer("bo", "yes")]),
        "exposures": heard("bo"),
    }
    assert handoff_completeness(public) is None
    kept = {  # private, but for its origin alone: nobody to hand it to
        "truth": frame("truth", [fact("diary", "yes", origin="ana", audience=["ana"])]),
        "probes": frame("probes", []),
        "exposures": heard("bo", proposition="diary"),
    }
    assert handoff_completeness(kept) is None


def test_it_is_registered_as_a_bounded_share_to_maximise() -> None:
    m = METRICS["handoff_completeness"]
    assert (m.direction, m.range, m.internal) == ("max", (0.0, 1.0), False)
    assert m.reads == ("exposures", "probes", "truth")
