"""Habits of thought (issue 18): a lessons-layer variant that needs three pieces of evidence, a
"because" and a limit; its gates answer no_evidence / no_counter / platitude as for lessons,
each seen firing on a real run, and the scorecard catches a habit kept past its gates."""

from __future__ import annotations

import pandas as pd

from harness.agents.reference.companion import lessons as les

from .companion_runs import measure, traces

WEAK_HOLD = {"companion.hold_strength": 0.1}  # writes first more often, at any hour


def _habits(t: dict[str, pd.DataFrame]) -> pd.DataFrame:
    notes = t["lessons"]
    return notes[notes["kind"].eq("habit")]


def test_each_habit_gate_fires_on_a_real_run() -> None:
    careful = _habits(traces("companion_checkins"))
    weak = _habits(traces("companion_checkins", values=WEAK_HOLD))
    gates = set(careful["gate"]) | set(weak["gate"])
    assert {"no_evidence", "no_counter", "platitude", "kept"} <= gates
    # the gates are the habit's own: thin evidence first, then no counter-example, then no
    # because or limit (the text left is what anyone could say)
    for h in pd.concat([careful, weak]).itertuples():
        if h.gate == "no_evidence":
            assert len(h.evidence) < 3
        elif h.gate == "no_counter":
            assert len(h.evidence) >= 3 and len(h.counter) == 0
        elif h.gate == "platitude":
            assert h.text == les.BECAUSE_PLATITUDE
        else:
            assert len(set(h.evidence)) >= 3 and len(h.counter) >= 1
            assert "because" in h.text and "does not hold" in h.text


def test_kept_habits_pass_the_scorecard_and_looser_thresholds_do_not() -> None:
    t = traces("companion_checkins")
    assert (_habits(t)["gate"] == "kept").any()
    assert measure(t, "lesson_gate_violations") == 0.0
    loose = traces("companion_checkins", "baseline")  # min_evidence 1, min_counter 0
    only_habits = {**loose, "lessons": _habits(loose)}
    assert (only_habits["lessons"]["gate"] == "kept").any()
    assert measure(only_habits, "lesson_gate_violations") > 0  # kept on two, or none against


def test_the_scorecard_catches_a_habit_kept_past_its_gates() -> None:
    t = traces("companion_checkins")
    kept = _habits(t)[_habits(t)["gate"].eq("kept")].iloc[[0]]
    faults = {
        "two pieces": kept.assign(evidence=[tuple(kept["evidence"].iloc[0][:2])]),
        "no because": kept.assign(
            text=["when I write in the morning, they answer; it does not hold in the evening"]
        ),
        "no limit": kept.assign(
            text=["when I write in the morning, they answer, because they are around then"]
        ),
        "platitude": kept.assign(text=[les.BECAUSE_PLATITUDE + "; it does not hold at night"]),
    }
    for name, row in faults.items():
        planted = {**t, "lessons": pd.concat([t["lessons"], row], ignore_index=True)}
        assert measure(planted, "lesson_gate_violations") == 1.0, name
