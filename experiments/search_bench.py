"""`villagelab bench --search`: is the search any good? Studies from baseline.yaml with
different study seeds, each for a fixed wall time, against the policy a person tuned by hand.

Per study: the trials it ran, the minute and trial at which its champion first reached
careful.yaml's objective on the selection seeds, and the final champion against careful.yaml
on fresh seeds (the suite's test seeds, never used for selection or confirmation), paired,
with its public_fact reach there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from policies import InputError, load_policy
from scorecards import Comparison, Scorecard, compare

from .config import SearchConfig, default_config
from .evaluation import Execution, Instrument
from .runs import RunsDir
from .trials import Evaluator, TrialOutcome

if TYPE_CHECKING:
    from .search import SearchResult

CAREFUL = Path(__file__).resolve().parents[1] / "policies" / "careful.yaml"
FRESH = 10  # fresh seeds the final champion and careful.yaml are compared on


@dataclass(frozen=True)
class StudyResult:
    study: str
    trials: int
    reached: tuple[float, int] | None  # (minute, trial) the champion first reached careful's
    champion_selection: float
    champion_fresh: Scorecard
    versus: Comparison  # champion − careful on the fresh seeds

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
        result, reached = _study(name, minutes, config, execution, root / name, target, on_trial)
        card = judge.card(load_policy(result.champion_policy), fresh)
        versus = compare(card, careful_fresh, instrument.definition, rule="likely")
        done = StudyResult(
            name, len(result.outcomes), reached, result.champion_objective, card, versus
        )
        on_study(done)
        results.append(done)
    return target, careful_fresh.objective or 0.0, results


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
) -> tuple[SearchResult, tuple[float, int] | None]:
    """One study for `minutes`, and when its champion first reached `target`."""
    from .search import Search

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

    def seen(outcome: TrialOutcome) -> None:
        minute = (time.monotonic() - began) / 60
        if not reached and outcome.champion_objective >= target:
            reached.append((minute, outcome.number))
        on_trial(name, minute, outcome)

    result = search.run(on_trial=seen)
    return result, (reached[0] if reached else None)
