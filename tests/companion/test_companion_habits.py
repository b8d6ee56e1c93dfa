"""Habits of thought (issue 18): a lessons-layer variant that needs three pieces of evidence, a
"because" and a limit; its gates answer no_evidence / no_counter / platitude as for lessons,
each seen firing on a real run, and the scorecard catches a habit kept past its gates."""

from __future__ import annotations

import pandas as pd

from harness.agents.reference.companion import lessons as les
from harness.agents.reference.companion.agenda import Sent
from harness.agents.reference.companion.character import Character

from .companion_runs import measure, traces

HERE = "tests.companion.test_companion_habits"
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


class HabitsChangeNothing(Character):
    """A planted fault: the same character, its habits drawn and gated as before, but none
    ever changes when it writes (a kept habit's limit is never consulted)."""

    def decide(self, now: int) -> list:
        kept, les.quiet_part = les.quiet_part, lambda *args: False
        try:
            return super().decide(now)
        finally:
            les.quiet_part = kept


def _check_ins(t: dict[str, pd.DataFrame]) -> list[tuple[int, int]]:
    d = t["dialogue"]
    first = d[d["turn"].eq("proactive") & d["text"].str.startswith("Thinking of you")]
    return list(zip(first["tick"].astype(int), first["at"].astype(int), strict=True))


def test_a_kept_habit_moves_check_ins_out_of_the_part_of_the_day_where_it_does_not_hold() -> None:
    """Juno keeps "when I write in the morning, they answer ...; it does not hold in the
    evening": from then on her check-ins wait for the morning. A copy whose habits change
    nothing writes one in the evening, later the same day."""
    t = traces("companion_checkins")
    habits = _habits(t)
    kept = habits[habits["gate"].eq("kept")]
    first = kept.iloc[0]
    assert first["lesson"] == "answered_morning" and "does not hold in the evening" in first["text"]
    after = [(tick, at) for tick, at in _check_ins(t) if tick > first["tick"]]
    assert after and all(les.part_of_day(at) != "evening" for _, at in after)
    blind = traces("companion_checkins", agent=f"{HERE}:HabitsChangeNothing")
    blind_habits = _habits(blind)
    assert blind_habits[blind_habits["gate"].eq("kept")].iloc[0]["tick"] == first["tick"]
    late = [at for tick, at in _check_ins(blind) if tick > first["tick"]]
    assert any(les.part_of_day(at) == "evening" for at in late)  # the copy writes anyway
    assert _check_ins(t) != _check_ins(blind)
    for name in ("commitment_recall", "proactive_over_budget", "holds_without_substitute"):
        assert measure(t, name) == measure(blind, name), name  # nothing else given up


def test_the_habit_a_check_in_waits_on_must_be_kept() -> None:
    """quiet_part: only a habit kept at the last look back, and still kept on its record."""
    heard = [d * 1440 + 8 * 60 for d in range(6)] + [1440 * 7 + 20 * 60]
    ledger = [Sent(d, d * 1440 + 7 * 60, True) for d in range(4)]
    ledger += [Sent(9, 5 * 1440 + 19 * 60, False), Sent(10, 6 * 1440 + 19 * 60, False)]
    ledger += [Sent(11, 7 * 1440 + 7 * 60, False)]  # a morning it did not hold: the counter
    evening, morning = 8 * 1440 + 20 * 60, 8 * 1440 + 8 * 60
    kept = {"answered_morning": "kept/4/2"}
    assert les.quiet_part(kept, ledger, heard, evening, 2, 1)
    assert not les.quiet_part(kept, ledger, heard, morning, 2, 1)
    assert not les.quiet_part({}, ledger, heard, evening, 2, 1)  # not kept at night yet
    assert not les.quiet_part(kept, ledger, heard, evening, 4, 1)  # past its gates now
