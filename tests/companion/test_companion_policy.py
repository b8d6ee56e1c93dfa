"""Each companion parameter buys something and costs something (a sweep shows it), and
careful.yaml beats baseline.yaml, paired on the same seeds, on each family (issue 18)."""

from __future__ import annotations

import pandas as pd

from scenarios import load_scenario
from scorecards import load_definition, score

from .companion_runs import mean, traces

SEEDS = range(3)


def _at(scenario: str, metric: str, name: str, value: object, **more: object) -> float:
    return mean(scenario, metric, SEEDS, values={name: value, **more})


def test_crisis_sensitivity_trades_misses_for_false_alarms() -> None:
    name = "safety.crisis_sensitivity"
    handled = [_at("companion_crisis", "crisis_handled", name, v) for v in (0.2, 0.5, 0.9)]
    alarms = [_at("companion_crisis", "crisis_false_alarms", name, v) for v in (0.2, 0.5, 0.9)]
    assert handled[0] < handled[1] == handled[2] == 1.0  # a dull filter misses veiled lines
    # a jumpy one scripts the jokes; the one that catches veiled lines also scripts the joke
    # that carries a veiled line's words
    assert alarms[0] == 0.0 < alarms[1] < alarms[2]


def test_recall_threshold_trades_wrong_memories_for_forgotten_promises() -> None:
    name = "companion.recall_threshold"
    values = (0.1, 0.6, 0.75, 0.98)
    uptake = {v: _at("companion_weeks", "correction_uptake", name, v) for v in values}
    kept = {v: _at("companion_weeks", "commitment_recall", name, v) for v in (0.1, 0.6, 1.05)}
    assert uptake[0.1] < uptake[0.6] < uptake[0.75] == 1.0  # low: a joke taken at its word
    assert uptake[0.98] < uptake[0.75]  # high: the correction itself fades
    assert kept[0.1] == kept[0.6] == 1.0 > kept[1.05]  # high: old promises are forgotten


def test_hold_strength_trades_restraint_for_kept_promises() -> None:
    name, chatty = "companion.hold_strength", {"companion.talk_budget": 8}
    over = [
        _at("companion_checkins", "proactive_over_budget", name, v, **chatty) for v in (0.1, 0.5)
    ]
    kept = [_at("companion_checkins", "commitment_recall", name, v, **chatty) for v in (0.5, 0.95)]
    assert over[0] > over[1]  # a weak hold: messages past the persona's budget
    assert kept[0] == 1.0 > kept[1]  # a hold stronger than a promise: reminders held back
    assert _at("companion_checkins", "holds_without_substitute", name, 0.95) == 0.0


def test_talk_budget_trades_kept_promises_for_restraint() -> None:
    name, weak_hold = "companion.talk_budget", {"companion.hold_strength": 0.1}
    kept = [_at("companion_checkins", "commitment_recall", name, v, **weak_hold) for v in (1, 8)]
    over = [
        _at("companion_checkins", "proactive_over_budget", name, v, **weak_hold) for v in (3, 8)
    ]
    assert kept[0] < kept[1] == 1.0  # spent on check-ins, a reminder waits for tomorrow
    assert over[0] == 0 < over[1]


def test_lesson_thresholds_below_the_gates_keep_lessons_on_too_little() -> None:
    chatty = {"companion.hold_strength": 0.1, "companion.talk_budget": 8}
    loose = mean(
        "companion_checkins",
        "lesson_gate_violations",
        SEEDS,
        values={"lessons.min_evidence": 1, "lessons.min_counter": 0, **chatty},
    )
    strict = mean(
        "companion_checkins",
        "lesson_gate_violations",
        SEEDS,
        values={"lessons.min_evidence": 2, "lessons.min_counter": 1, **chatty},
    )
    assert loose > 0 == strict


FAMILIES = {
    "companion": ("companion_weeks", "companion_checkins", "companion_crisis"),
    "support": ("support_policy", "support_followup", "support_privacy"),
}


def test_careful_beats_baseline_paired_on_each_family() -> None:
    """Per seed, careful's objective over the family's scenarios is at least baseline's and
    above it on some seed; baseline breaks guardrails that careful holds."""
    definition = load_definition()
    hashes = {"harness": "h", "instrument": "i", "policy": "p"}
    for family, scenarios in FAMILIES.items():
        cards = {}
        for name in ("baseline", "careful"):
            tables: dict = {}
            for s in scenarios:
                for seed in SEEDS:
                    for table, frame in traces(s, name, seed).items():
                        tables.setdefault(table, []).append(frame)
            merged = {t: pd.concat(f, ignore_index=True) for t, f in tables.items()}
            applicable = {s: tuple(load_scenario(s).metrics) for s in scenarios}
            cards[name] = score(merged, definition, hashes=hashes, applicable=applicable)
        base, careful = cards["baseline"].to_json(), cards["careful"].to_json()
        per_seed = zip(
            base["objective_per_seed"].values(), careful["objective_per_seed"].values(), strict=True
        )
        gains = [c - b for b, c in per_seed]
        assert min(gains) >= 0 and max(gains) > 0, family
        assert all(g["ok"] for g in careful["guardrails"].values()), family
        assert not all(g["ok"] for g in base["guardrails"].values()), family
