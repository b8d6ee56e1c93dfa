"""`bench --search` runs a sample of each study's pruned trials to the end and judges them as
the selection stage would have, against the champion and anchor of their moment: the share
that would have passed says whether the pruner throws away the road."""

from __future__ import annotations

import math
from pathlib import Path

from experiments.benches.search import History, would_pass
from experiments.evaluation.evaluate import Execution, Instrument
from experiments.search.config import SearchConfig
from experiments.search.study import Decision
from experiments.search.trials import Evaluator, TrialOutcome
from policies import Policy, baseline_path, load_policy

ROOT = Path(__file__).resolve().parents[1]
CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")
BASELINE = load_policy(baseline_path())


def outcome(number: int, policy: Policy, decision: Decision) -> TrialOutcome:
    return TrialOutcome(number, policy, math.nan, decision, "", 0.0, 0.0)


def test_the_history_keeps_each_pruned_trial_with_the_champion_of_its_moment():
    history = History(BASELINE)
    history.saw(outcome(0, BASELINE, Decision.PRUNED))
    history.saw(outcome(1, CAREFUL, Decision.PROMOTED))
    history.saw(outcome(2, BASELINE, Decision.ROLLED_BACK))
    history.saw(outcome(3, BASELINE, Decision.PRUNED))
    assert history.champions == [BASELINE, CAREFUL]
    assert [(t.number, c) for t, c in history.pruned] == [(0, 0), (3, 1)]


def test_the_sample_spreads_over_the_study_and_takes_all_when_there_are_few():
    history = History(BASELINE)
    for n in range(45):
        history.saw(outcome(n, BASELINE, Decision.PRUNED))
    sampled = [t.number for t, _ in history.sample(20)]
    assert len(sampled) == 20 and len(set(sampled)) == 20
    assert sampled[0] == 0 and sampled[-1] >= 40  # the start and the end of the study
    assert [t.number for t, _ in history.sample(50)] == list(range(45))


def test_the_anchor_is_the_first_champion_that_held_every_guardrail():
    history = History(BASELINE)
    history.saw(outcome(1, CAREFUL, Decision.PROMOTED))
    feasible = {BASELINE.hash: False, CAREFUL.hash: True}
    assert history.anchor(1, lambda p: feasible[p.hash]) == CAREFUL
    assert history.anchor(0, lambda p: feasible[p.hash]) == BASELINE  # none feasible yet
    assert history.anchor(1, lambda p: True) == BASELINE


def test_a_pruned_trial_counts_only_when_run_to_the_end_it_beats_the_champion_of_its_moment(
    tmp_path,
):
    config = SearchConfig(scenarios=("public_fact",), seeds=(0, 1, 2))
    instrument = Instrument.load(config.scenarios)
    judge = Evaluator(
        instrument, Execution(serial=True), "global", tmp_path, instrument.hashes(CAREFUL)
    )
    history = History(BASELINE)
    history.saw(outcome(4, CAREFUL, Decision.PRUNED))  # careful against baseline: a clear gain
    history.saw(outcome(5, BASELINE, Decision.PRUNED))  # the champion itself: no gain
    history.saw(outcome(6, CAREFUL, Decision.PROMOTED))
    history.saw(outcome(7, CAREFUL, Decision.PRUNED))  # the champion of its moment by then
    history.saw(outcome(8, BASELINE, Decision.PRUNED))  # worse than that champion
    assert would_pass(history, judge, config) == (4,)
