"""`villagelab report --study NAME`: the morning summary of an overnight search.

Written as markdown and self-contained HTML under the study's folder (`morning.md`,
`morning.html`): the champion against careful.yaml and baseline.yaml metric by metric with
intervals (all three measured on the study's selection seeds, so the columns compare), every
trial's decision and reason, the best rejected challenger and why it was rejected,
promotions over time, the champion's parameters against both files, parameter importances
(with a warning when there are too few trials for them to mean much), and the Pareto front
in pareto mode.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from experiments.evaluation.dispatch import Execution
from experiments.evaluation.evaluate import Instrument
from experiments.promotion.champion import Registry, tracking_uri_for
from experiments.search.config import default_config
from experiments.search.study import Decision, SubStudy, storage_for
from experiments.search.trials import Evaluator
from experiments.stores.runs_folder import RunsDir
from policies import InputError, Policy, diff, load_policy
from scorecards import Comparison, Scorecard, compare
from scorecards.report import Block, Heading, Table, Text, interval, num, write_document

POLICIES = Path(__file__).resolve().parents[2] / "policies"
FEW_TRIALS = 30  # below this, fANOVA importances are more noise than signal
MARKS: dict[str, str] = {Decision.PROMOTED: "better", Decision.FAILED: "worse"}


def _trials(backend: Any, names: list[str]) -> list[tuple[str, FrozenTrial]]:
    out = []
    for name in sorted(names):
        sub = SubStudy.of(name)
        label = "" if sub is None else sub.label + " "
        out += [
            (f"{label}#{t.number}" if label else str(t.number), t)
            for t in optuna.load_study(study_name=name, storage=backend).get_trials(deepcopy=False)
        ]
    return out


def _decision(t: FrozenTrial) -> str:
    return str(t.user_attrs.get("decision", t.state.name.lower()))


def _cards(
    main: optuna.Study, study_name: str, runs: RunsDir, champion: Policy
) -> tuple[dict[str, Scorecard], Comparison | None, str]:
    """The champion, careful.yaml and baseline.yaml on the study's selection seeds."""

    suite = main.user_attrs.get("suite")  # None: the main suite (or a study from before)
    default = default_config(suite)
    scenarios = tuple(main.user_attrs.get("scenarios") or default.scenarios)
    seeds = tuple(main.user_attrs.get("seeds") or default.seeds)
    instrument = Instrument.load(scenarios, suite=suite)
    hashes = instrument.hashes(champion)
    agent = str(main.user_attrs.get("agent") or "reference")  # the agent the study searched for
    evaluator = Evaluator(
        instrument,
        Execution(serial=True, agent=agent),
        "global",
        runs.study_dir(study_name),
        hashes,
    )
    cards = {"champion": evaluator.card(champion, seeds)}
    for label in ("careful", "baseline"):
        # on the champion's surface: an agent's own parameters at their defaults
        cards[label] = evaluator.card(
            load_policy(POLICIES / f"{label}.yaml", champion.surface), seeds
        )
    moved = [k for k in ("harness", "instrument") if main.user_attrs.get(k) != hashes[k]]
    note = (
        f"Measured on the study's selection seeds ({', '.join(map(str, seeds))}) and "
        f"scenarios, with this checkout"
        + (f" — whose {' and '.join(moved)} differ from the study's" if moved else "")
        + "."
    )
    return (
        cards,
        compare(cards["champion"], cards["careful"], instrument.definition, rule="likely"),
        note,
    )


def _three_way(cards: dict[str, Scorecard], versus: Comparison | None, note: str) -> list[Block]:
    def cell(card: Scorecard, name: str, scenario: str | None = None) -> str:
        m = (card.metrics if scenario is None else card.scenarios.get(scenario, {})).get(name)
        return "—" if m is None else f"{num(m.mean)} {interval(m.ci_low, m.ci_high)}"

    champion, careful, baseline = cards["champion"], cards["careful"], cards["baseline"]
    arrows = {"max": "↑", "min": "↓"}
    rows = [
        (
            "objective",
            "↑",
            *(
                f"{num(c.objective)} {interval(*(c.objective_ci or (None, None)))}"
                for c in (champion, careful, baseline)
            ),
        )
    ]
    rows += [
        (name, arrows[m.direction], cell(champion, name), cell(careful, name), cell(baseline, name))
        for name, m in champion.metrics.items()
    ]
    diffs = {(d.scenario, d.metric): d for d in (versus.metrics if versus else ())}
    detail, marks = [], []
    for scenario, by_name in champion.scenarios.items():
        for name, m in by_name.items():
            d = diffs.get((scenario, name))
            change = (
                "—"
                if d is None
                else (f"{num(d.diff.mean, signed=True)} {interval(d.diff.ci_low, d.diff.ci_high)}")
            )
            worse = 0.0 if d is None else (-d.diff.mean if d.direction == "max" else d.diff.mean)
            mark = (
                ""
                if d is None or abs(worse) <= d.tolerance
                else "regressed"
                if d.regressed
                else "worse"
                if worse > 0
                else "better"
            )
            detail.append(
                (
                    scenario,
                    name,
                    arrows[m.direction],
                    cell(champion, name, scenario),
                    cell(careful, name, scenario),
                    cell(baseline, name, scenario),
                    change,
                )
            )
            marks.append(mark)
    headers = ("metric", "dir", "champion", "careful.yaml", "baseline.yaml")
    return [
        Heading(2, "Champion, careful.yaml and baseline.yaml, metric by metric"),
        Text(note + " Mean [95% CI] over seeds."),
        Table(headers, tuple(rows)),
        Heading(3, "Per scenario"),
        Text(
            "The last column is champion − careful, paired on the same seeds; a row is "
            "red where the champion is worse than careful.yaml by more than the "
            "metric's tolerance, green where it is better by more (whatever the "
            "metric's direction), dark red where it is surely worse."
        ),
        Table(("scenario", *headers, "champion − careful"), tuple(detail), tuple(marks)),
    ]


def _trial_table(trials: list[tuple[str, FrozenTrial]]) -> list[Block]:
    rows, marks = [], []
    for label, t in trials:
        objective = t.user_attrs.get("objective")
        violation = t.user_attrs.get("violation")
        rows.append(
            (
                label,
                _decision(t),
                num(objective) if objective is not None else "—",
                num(violation) if violation is not None else "—",
                str(t.user_attrs.get("reason", "")),
            )
        )
        marks.append(MARKS.get(_decision(t), ""))
    return [
        Heading(2, "Every trial"),
        Text(
            "Decision and reason as the search recorded them (also the Optuna trial's "
            "user attributes and the MLflow run's tags). Objective and violation are on "
            "the selection seeds."
        ),
        Table(("trial", "decision", "objective", "violation", "reason"), tuple(rows), tuple(marks)),
    ]


def _best_rejected(trials: list[tuple[str, FrozenTrial]], champion: Policy) -> list[Block]:
    """The rolled-back trial Optuna ranks highest (feasibility first), and why it lost."""
    rejected = [
        (label, t)
        for label, t in trials
        if _decision(t) == Decision.ROLLED_BACK
        and t.state == TrialState.COMPLETE
        and t.values is not None
    ]
    out: list[Block] = [Heading(2, "The best rejected challenger")]
    if not rejected:
        return [*out, Text("No trial was rolled back.")]
    label, best = max(rejected, key=lambda p: (min(p[1].values), -p[1].number))
    objective, violation = best.user_attrs.get("objective"), best.user_attrs.get("violation")
    out.append(
        Text(
            f"Trial {label}: objective {num(objective)}, guardrail violation "
            f"{num(violation)} on the selection seeds. Rejected because: "
            f"{best.user_attrs.get('reason', '(no reason recorded)')}"
        )
    )
    rows = []
    if not any(k.startswith("flip:") for k in best.params):  # local mode samples a part only
        try:
            rows = diff(champion, Policy(best.params, champion.surface))
        except InputError:
            rows = []
    if rows:
        out += [
            Text("Where it differs from the champion:"),
            Table(
                ("parameter", "champion", f"trial {label}"),
                tuple((n, str(a), str(b)) for n, a, b in rows),
            ),
        ]
    return out


def _blocked(trials: list[tuple[str, FrozenTrial]]) -> list[Block]:
    """Trials with a higher objective than their champion and every guardrail held, refused
    only because a metric got worse past its tolerance: how often the rule blocks a trade."""
    blocked = [(label, t) for label, t in trials if t.user_attrs.get("blocked_by_tolerance")]
    out: list[Block] = [Heading(2, "Blocked by tolerance")]
    if not blocked:
        return [*out, Text("No trial that beat its champion was refused by a tolerance.")]
    by_metric: dict[str, list[str]] = {}
    for label, t in blocked:
        for pair in t.user_attrs["blocked_by_tolerance"]:
            by_metric.setdefault(pair.split("/", 1)[1], []).append(label)
    out.append(
        Text(
            f"{len(blocked)} of {len(trials)} trials beat their champion's objective with "
            "every guardrail held and were refused because a metric got worse beyond its "
            "tolerance (`scorecards/default.yaml`), by metric:"
        )
    )
    rows = sorted(by_metric.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [
        *out,
        Table(
            ("metric", "trials", "which"),
            tuple((m, str(len(ls)), ", ".join(sorted(set(ls)))) for m, ls in rows),
        ),
    ]


def _importances(studies: list[optuna.Study]) -> list[Block]:
    def finished(study: optuna.Study) -> int:
        return sum(t.state == TrialState.COMPLETE for t in study.get_trials(deepcopy=False))

    main = max(studies, key=finished)  # local mode: the sub-study with the most to learn from
    complete = finished(main)
    if len(main.directions) > 1 or complete < 2:
        return []
    try:
        importances = optuna.importance.get_param_importances(main)
    except (ValueError, RuntimeError):
        importances = {}
    out: list[Block] = [
        Heading(
            2,
            f"Parameter importances (fANOVA over the {complete} "
            f"completed trials of {main.study_name})",
        )
    ]
    if complete < FEW_TRIALS:
        out.append(
            Text(
                f"**Warning:** only {complete} completed trials (fewer than "
                f"{FEW_TRIALS}): importances from so few trials are mostly noise; "
                "read them as a hint, not a finding."
            )
        )
    out.append(
        Table(("parameter", "importance"), tuple((k, f"{v:.3f}") for k, v in importances.items()))
    )
    return out


def morning_report(
    study_name: str, runs_dir: Path, storage: str | None, tracking_uri: str | None
) -> tuple[Path, Path, str]:
    """Write the report; return the markdown and HTML paths and the markdown text."""
    runs = RunsDir(runs_dir)
    backend = storage_for(storage, runs.journal) if storage or runs.journal.exists() else None
    if backend is None:
        raise InputError(f"{runs_dir}: no Optuna journal; run 'villagelab search' first")
    names = [
        n
        for n in optuna.study.get_all_study_names(storage=backend)
        if n == study_name or SubStudy.within(n, study_name)
    ]
    if study_name not in names:
        raise InputError(f"no study {study_name!r} in {runs_dir}")
    studies = [optuna.load_study(study_name=n, storage=backend) for n in sorted(names)]
    main = next(s for s in studies if s.study_name == study_name)
    trials = _trials(backend, names)
    decisions = {d: sum(_decision(t) == d for _, t in trials) for d in (*Decision, "running")}
    blocks: list[Block] = [
        Heading(1, f"Morning report: study {study_name}"),
        Table(
            ("", ""),
            (
                ("trials", str(len(trials))),
                *((d, str(n)) for d, n in decisions.items() if n),
                ("mode", str(main.user_attrs.get("mode", ""))),
                ("runs folder", str(runs.root)),
            ),
        ),
    ]
    registry = Registry(tracking_uri_for(runs_dir, tracking_uri))
    history = [v for v in registry.history() if v.study == study_name]
    champion = None
    if registry.current_version() is not None:
        number, champion = registry.policy()
        current = next((v for v in registry.history() if v.version == number), None)
        blocks.append(
            Text(
                f"The champion is version {number}"
                + (f" (study {current.study}, trial {current.trial})" if current else "")
                + "."
            )
        )
        try:
            cards, versus, note = _cards(main, study_name, runs, champion)
            blocks += _three_way(cards, versus, note)
        except InputError as exc:  # e.g. an agent that needs its options (--llm-config)
            blocks += [
                Heading(2, "Champion, careful.yaml and baseline.yaml, metric by metric"),
                Text(f"Not measured: the study's agent could not run here ({exc})."),
            ]
    blocks += _trial_table(trials)
    if champion is not None:
        blocks += _best_rejected(trials, champion)
    blocks += _blocked(trials)
    blocks += [
        Heading(2, "Promotions over time"),
        Table(
            ("version", "trial", "objective", "replaced"),
            tuple(
                (
                    f"{v.version}{' (champion)' if v.current else ''}",
                    v.trial,
                    "" if v.objective is None else f"{v.objective:.4f}",
                    "" if v.previous is None else str(v.previous),
                )
                for v in history
            ),
        ),
    ]
    if champion is not None:
        for label in ("careful", "baseline"):
            rows = diff(load_policy(POLICIES / f"{label}.yaml", champion.surface), champion)
            blocks += [
                Heading(2, f"Champion parameters against {label}.yaml"),
                Table(
                    ("parameter", label, "champion"),
                    tuple((n, str(a), str(b)) for n, a, b in rows) or (("(none)", "", ""),),
                ),
            ]
    blocks += _importances(studies)
    if len(main.directions) > 1:
        blocks += [
            Heading(2, "Pareto front (best trials)"),
            Table(
                ("trial", "objectives"),
                tuple(
                    (str(t.number), ", ".join(f"{v:.4f}" for v in t.values))
                    for t in main.best_trials
                ),
            ),
        ]
    md, html = write_document(
        blocks, runs.study_dir(study_name), f"Morning report: study {study_name}", stem="morning"
    )
    return md, html, md.read_text()
