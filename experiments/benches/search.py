"""`villagelab bench --search`: is the search any good? Studies from baseline.yaml with
different study seeds, each for a fixed wall time, against the policy a person tuned by hand.

Per study: the trials it ran, the minute and trial at which its champion first reached
careful.yaml's objective on the selection seeds, and the final champion against careful.yaml
on fresh seeds (the suite's test seeds, never used for selection or confirmation), paired,
with its public_fact reach there. And whether the pruner throws away the road: a sample of the
study's pruned trials run to the end and judged against the champion and anchor of their
moment, as the selection stage judges — how many would have passed it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from experiments.evaluation.dispatch import Execution
from experiments.evaluation.evaluate import Instrument
from experiments.promotion import rules as promotion
from experiments.search.config import SearchConfig, default_config
from experiments.search.loop import Search, SearchResult
from experiments.search.study import Decision
from experiments.search.trials import Evaluator, TrialOutcome
from experiments.stores.runs_folder import RunsDir
from policies import InputError, Policy, load_policy
from scorecards import Comparison, Scorecard, compare

CAREFUL = Path(__file__).resolve().parents[2] / "policies" / "careful.yaml"
FRESH = 10  # fresh seeds the final champion and careful.yaml are compared on
PRUNED_SAMPLE = 20  # pruned trials per study run to the end: would they have been promoted?


@dataclass(frozen=True)
class StudyResult:
    study: str
    trials: int
    reached: tuple[float, int] | None  # (minute, trial) the champion first reached careful's
    champion_selection: float
    champion_fresh: Scorecard
    versus: Comparison  # champion − careful on the fresh seeds
    pruned: int  # trials the pruner stopped
    sampled: int  # of which run to the end
    would_pass: tuple[int, ...]  # the sampled trials that would have passed selection

    @property
    def public_reach(self) -> float | None:
        summary = self.champion_fresh.scenarios.get("public_fact", {}).get("reach")
        return None if summary is None else summary.mean


def search_bench(
    minutes: float,
    studies: int,
    execution: Execution,
    root: Path,
    config: SearchConfig | None = None,
    on_study: Callable[[StudyResult], None] = lambda _: None,
    on_trial: Callable[[str, float, TrialOutcome], None] = lambda *_: None,
) -> tuple[float, float, list[StudyResult]]:
    """Run `studies` searches of `minutes` each under ROOT (new folders: a benchmark never
    resumes), on the main suite or `config`; careful.yaml's objective on the selection and
    the fresh seeds, and each study's result. `on_trial` hears each trial as it ends, with its
    study and the minutes since the study began."""
    config = config or default_config()
    names = [f"bench-search-{k}" for k in range(studies)]
    kept = [n for n in names if (root / n).exists()]
    if kept:
        raise InputError(
            f"{root / kept[0]} exists: a benchmark starts from nothing; remove it or give "
            "another --runs-dir"
        )
    instrument = Instrument.load(config.scenarios, suite=config.suite)
    careful = load_policy(CAREFUL)
    fresh = fresh_seeds(config.suite)
    judge = Evaluator(instrument, execution, "global", root / "careful", instrument.hashes(careful))
    careful_selection = judge.card(careful, config.seeds)
    careful_fresh = judge.card(careful, fresh)
    target = careful_selection.objective or 0.0
    results = []
    for name in names:
        result, reached, history = _study(
            name, minutes, config, execution, root / name, target, on_trial
        )
        card = judge.card(load_policy(result.champion_policy), fresh)
        versus = compare(card, careful_fresh, instrument.definition, rule="likely")
        done = StudyResult(
            name,
            len(result.outcomes),
            reached,
            result.champion_objective,
            card,
            versus,
            len(history.pruned),
            len(history.sample(PRUNED_SAMPLE)),
            would_pass(history, judge, config),
        )
        on_study(done)
        results.append(done)
    return target, careful_fresh.objective or 0.0, results


class History:
    """A study's champions in order, and its pruned trials with the champion of their moment."""

    def __init__(self, start: Policy) -> None:
        self.champions = [start]
        self.pruned: list[tuple[TrialOutcome, int]] = []  # (the trial, its champion's index)

    def saw(self, outcome: TrialOutcome) -> None:
        if outcome.decision == Decision.PRUNED:
            self.pruned.append((outcome, len(self.champions) - 1))
        elif outcome.decision == Decision.PROMOTED:
            self.champions.append(outcome.policy)

    def sample(self, count: int) -> list[tuple[TrialOutcome, int]]:
        """`count` pruned trials spread evenly over the study (all of them, if fewer)."""
        n = len(self.pruned)
        return [self.pruned[k * n // count] for k in range(count)] if n > count else self.pruned

    def anchor(self, champion: int, feasible: Callable[[Policy], bool]) -> Policy:
        """The anchor at the moment of champion `champion`: the first champion, or, when that
        broke a guardrail, the first that held every one (as `promoter.Standing` keeps it)."""
        so_far = self.champions[: champion + 1]
        return next((p for p in so_far if feasible(p)), so_far[0])


def would_pass(history: History, judge: Evaluator, config: SearchConfig) -> tuple[int, ...]:
    """The sampled pruned trials that, run on every selection instance, pass the selection
    stage against the champion and anchor of their moment (fresh seeds would confirm next)."""
    definition = judge.instrument.definition

    def card(p: Policy) -> Scorecard:
        return judge.card(p, config.seeds)

    def feasible(p: Policy) -> bool:
        return promotion.violation(card(p), definition) == 0

    passed = []
    for outcome, champion in history.sample(PRUNED_SAMPLE):
        standing = history.champions[champion]
        anchor = history.anchor(champion, feasible)
        apart = None if anchor.hash == standing.hash else card(anchor)
        judged = promotion.on_selection(
            card(outcome.policy), card(standing), definition, config.margin, apart
        )
        if judged.promote:
            passed.append(outcome.number)
    return tuple(passed)


def fresh_seeds(suite: str | None = None) -> tuple[int, ...]:
    """The first FRESH of the suite's test seeds: never selection, confirmation or gate."""
    from scenarios.suite import load_suite

    return tuple(load_suite(suite).seeds.test[:FRESH])


def _study(
    name: str,
    minutes: float,
    config: SearchConfig,
    execution: Execution,
    folder: Path,
    target: float,
    on_trial: Callable[[str, float, TrialOutcome], None],
) -> tuple[SearchResult, tuple[float, int] | None, History]:
    """One study for `minutes`, when its champion first reached `target`, and its history."""

    search = Search(
        name,
        trials=1_000_000,  # bounded by the clock, not a budget
        hours=minutes / 60,
        mode="global",
        config=config,
        runs=RunsDir(folder),
        execution=execution,
    )
    began = time.monotonic()
    reached: list[tuple[float, int]] = []
    history = History(search.start_policy)

    def seen(outcome: TrialOutcome) -> None:
        minute = (time.monotonic() - began) / 60
        if not reached and outcome.champion_objective >= target:
            reached.append((minute, outcome.number))
        history.saw(outcome)
        on_trial(name, minute, outcome)

    result = search.run(on_trial=seen)
    return result, (reached[0] if reached else None), history
