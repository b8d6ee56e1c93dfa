"""`villagelab report --study NAME`: the morning summary of an overnight search.

Promotions over time, the champion's parameters against careful.yaml and baseline.yaml,
parameter importances, and the Pareto front in pareto mode — as markdown under the study's
folder and on the terminal.
"""

from __future__ import annotations

from pathlib import Path

import optuna
from optuna.trial import TrialState

from harness.store import atomic_write_bytes
from policies import InputError, diff, load_policy

from .champion import Registry, tracking_uri_for
from .runs import RunsDir
from .study import storage_for

POLICIES = Path(__file__).resolve().parent.parent / "policies"


def morning_report(study_name: str, runs_dir: Path, storage: str | None,
                   tracking_uri: str | None) -> tuple[Path, str]:
    runs = RunsDir(runs_dir)
    backend = storage_for(storage, runs.journal) if storage or runs.journal.exists() else None
    if backend is None:
        raise InputError(f"{runs_dir}: no Optuna journal; run 'villagelab search' first")
    names = [n for n in optuna.study.get_all_study_names(storage=backend)
             if n == study_name or n.startswith(f"{study_name}@")]
    if not names:
        raise InputError(f"no study {study_name!r} in {runs_dir}")
    trials = [t for n in sorted(names)
              for t in optuna.load_study(study_name=n, storage=backend).get_trials(
                  deepcopy=False)]
    states = {s.name.lower(): sum(t.state == s for t in trials) for s in TrialState}
    lines = [f"# Morning report: study {study_name}", "",
             "| trials | " + " | ".join(states) + " |",
             "|---|" + "---|" * len(states),
             f"| {len(trials)} | " + " | ".join(str(v) for v in states.values()) + " |", ""]
    registry = Registry(tracking_uri_for(runs_dir, tracking_uri))
    history = [v for v in registry.history() if v.study == study_name or v.trial == "start"]
    lines += ["## Promotions over time", "", "| version | trial | objective | replaced |",
              "|---|---|---|---|"]
    lines += [f"| {v.version}{' (champion)' if v.current else ''} | {v.trial} | "
              f"{'' if v.objective is None else f'{v.objective:.4f}'} | {v.previous or ''} |"
              for v in history]
    if registry.current_version() is not None:
        number, champion = registry.policy()
        for label in ("careful", "baseline"):
            rows = diff(load_policy(POLICIES / f"{label}.yaml"), champion)
            lines += ["", f"## Champion (version {number}) against {label}.yaml", "",
                      f"| parameter | {label} | champion |", "|---|---|---|"]
            lines += [f"| {name} | {a} | {b} |" for name, a, b in rows] or ["| (none) | | |"]
    studies = [optuna.load_study(study_name=n, storage=backend) for n in sorted(names)]

    def finished(study: optuna.Study) -> int:
        return sum(t.state == TrialState.COMPLETE for t in study.get_trials(deepcopy=False))

    main = max(studies, key=finished)  # local mode: the sub-study with the most to learn from
    complete = [t for t in main.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    if len(main.directions) == 1 and len(complete) >= 2:
        try:
            importances = optuna.importance.get_param_importances(main)
        except (ValueError, RuntimeError):
            importances = {}
        lines += ["", f"## Parameter importances (fANOVA over the {len(complete)} completed "
                  f"trials of {main.study_name})", "",
                  "| parameter | importance |", "|---|---|"]
        lines += [f"| {k} | {v:.3f} |" for k, v in importances.items()]
    if len(main.directions) > 1:
        lines += ["", "## Pareto front (best trials)", "", "| trial | objectives |", "|---|---|"]
        lines += [f"| {t.number} | {', '.join(f'{v:.4f}' for v in t.values)} |"
                  for t in main.best_trials]
    text = "\n".join(lines) + "\n"
    path = runs.study_dir(study_name) / "morning.md"
    atomic_write_bytes(path, text.encode())
    return path, text
