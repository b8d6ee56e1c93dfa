"""`reach`: knowers in the audience ÷ audience, origin excluded, last census answer counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scorecard_traces import answer, fact, frame, heard

from scorecards.metrics import METRICS
from scorecards.metrics.reach import reach


def test_reach_counts_audience_knowers_and_excludes_origin() -> None:
    episode = {
        "truth": frame("truth", [fact()]),
        "probes": frame(
            "probes",
            [
                answer("ana", "yes"),  # origin: never counted
                answer("bo", "yes"),
                answer("cy", "no"),  # wrong value
                answer("di", None),  # "I don't know"
                # ed never answered
            ],
        ),
        "exposures": heard("bo", "cy", "di", "ed"),
    }
    assert reach(episode) == pytest.approx(1 / 4)


def test_an_answer_nothing_reached_the_agent_for_is_a_guess_not_knowledge() -> None:
    episode = {
        "truth": frame("truth", [fact()]),
        "probes": frame("probes", [answer("bo", "yes"), answer("cy", "yes", tick=100)]),
        # bo was never exposed; cy only after its census answer
        "exposures": heard("cy", tick=150),
    }
    assert reach(episode) == 0.0


def test_reach_pools_over_propositions() -> None:
    episode = {
        "truth": frame(
            "truth", [fact(), fact("bo_leaves", "maybe", origin="bo", audience=["ana", "bo"])]
        ),
        "probes": frame(
            "probes",
            [
                answer("bo", "yes"),
                answer("ana", "maybe", proposition="bo_leaves"),
            ],
        ),
        "exposures": pd.concat([heard("bo"), heard("ana", proposition="bo_leaves", value="maybe")]),
    }
    # (1 of 4) + (1 of 1) pooled = 2 / 5
    assert reach(episode) == pytest.approx(2 / 5)


def test_reach_uses_the_last_census_answer_and_ignores_plain_probes() -> None:
    episode = {
        "truth": frame("truth", [fact()]),
        "probes": frame(
            "probes",
            [
                answer("bo", "yes", tick=50),
                answer("bo", None, tick=100),  # forgot by the last census: not a knower
                answer("cy", None, tick=50),
                answer("cy", "yes", tick=100),  # learnt by the last census: a knower
                answer("di", "no", tick=50),
                answer("di", "yes", tick=100),  # corrected by the last census: a knower
                answer("ed", "yes", tick=120, kind="probe"),  # an interview, not a census
            ],
        ),
        "exposures": heard("bo", "cy", "di", "ed"),
    }
    assert reach(episode) == pytest.approx(2 / 4)


def test_the_last_census_answer_is_the_latest_tick_then_event_not_the_stored_order() -> None:
    rows = [
        answer("bo", None, tick=100),  # stored first, answered last: forgot
        answer("bo", "yes", tick=50),
        {**answer("cy", None, tick=100), "event_id": 7},
        {**answer("cy", "yes", tick=100), "event_id": 9},  # the later event at that tick
    ]
    episode = {
        "truth": frame("truth", [fact()]),
        "probes": frame("probes", rows),
        "exposures": heard("bo", "cy"),
    }
    assert reach(episode) == pytest.approx(1 / 4)  # cy of bo, cy, di, ed


def test_outsiders_who_know_do_not_raise_reach() -> None:
    episode = {
        "truth": frame("truth", [fact("secret", "yes", audience=["ana", "bo", "cy"])]),
        "probes": frame(
            "probes",
            [
                answer("bo", "yes", proposition="secret"),
                answer("di", "yes", proposition="secret"),  # outsider
                answer("ed", "yes", proposition="secret"),  # outsider
            ],
        ),
        "exposures": heard("bo", "di", "ed", proposition="secret"),
    }
    assert reach(episode) == pytest.approx(1 / 2)


def test_silent_village_has_reach_zero_not_none() -> None:
    truth = frame("truth", [fact()])
    assert reach({"truth": truth}) == 0.0  # no probes table at all
    assert reach({"truth": truth, "probes": frame("probes", [])}) == 0.0
    everyone_unsure = frame("probes", [answer(a, None) for a in ("bo", "cy", "di", "ed")])
    assert reach({"truth": truth, "probes": everyone_unsure}) == 0.0


def test_reach_is_absent_without_tracked_propositions() -> None:
    probes = frame("probes", [answer("bo", "yes")])
    assert reach({"truth": frame("truth", []), "probes": probes}) is None
    assert reach({"probes": probes}) is None
    only_origin = frame("truth", [fact(audience=["ana"])])
    assert reach({"truth": only_origin, "probes": probes}) is None


def test_reach_reads_audiences_as_parquet_gives_them() -> None:
    truth = frame("truth", [fact()])
    truth["audience"] = pd.Series([np.array(["ana", "bo", "cy"], dtype=object)], dtype=object)
    probes = frame("probes", [answer("bo", "yes"), answer("cy", "yes")])
    probes = probes.astype({"answer_value": "str", "agent": "str"})
    assert reach({"truth": truth, "probes": probes, "exposures": heard("bo", "cy")}) == 1.0


def test_reach_is_registered_with_its_contract() -> None:
    m = METRICS["reach"]
    assert (m.direction, m.range, m.internal, m.fn) == ("max", (0.0, 1.0), False, reach)
