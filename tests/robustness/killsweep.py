"""Kill a small search at every moment of its start and check that it resumes whole (issue 17:
"a kill at any moment of a search, swept across its first seconds, where stores are created,
leaves a study that resumes with every trial accounted for; no orphan processes").

    .venv/bin/python -m tests.robustness.killsweep                # every checkpoint, serial
    .venv/bin/python -m tests.robustness.killsweep --store 3      # and SIGKILLs every 0.1 s
    .venv/bin/python -m tests.robustness.killsweep --ray --points 1,2,5   # on a local cluster

Each point: `villagelab search` in its own process, ended at checkpoint N
(VILLAGELAB_INTERRUPT_AT, as kill -9 would) or by a real SIGKILL t seconds after its MLflow
store's temporary file appeared (the moments between checkpoints while MLflow creates its
SQLite tables, about 2 s; Ray starts later, at the first trial); then the
same command again, as a user would, which must end with the budget spent and every trial
accounted for in Optuna and MLflow; then no process started with this sweep's private
records folder may be alive (orphans of the kill that the resume's sweep missed).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from ..servers import EXE

TRIALS = 2
MISSED = "the store's creation was missed"


def search(runs: Path, config: Path, ray: bool) -> list[str]:
    where = ["--workers", "1"] if ray else ["--serial"]
    return [
        EXE,
        "search",
        "--study",
        "s",
        "--trials",
        str(TRIALS),
        "--config",
        str(config),
        "--runs-dir",
        str(runs),
        *where,
    ]


def accounted(runs: Path, budget: int = TRIALS) -> list[str]:
    """What is wrong with the study in `runs` after a resume: a trial left RUNNING, the budget
    overshot or lost, a trial without its MLflow run (unless failed and re-queued)."""
    import optuna
    from mlflow.tracking import MlflowClient
    from optuna.trial import TrialState

    problems: list[str] = []
    study = optuna.load_study(
        study_name="s",
        storage=optuna.storages.JournalStorage(
            optuna.storages.journal.JournalFileBackend(str(runs / "optuna.journal"))
        ),
    )
    trials = study.get_trials(deepcopy=False)
    running = [t.number for t in trials if t.state == TrialState.RUNNING]
    if running:
        problems.append(f"trials left RUNNING: {running}")
    finished = [t for t in trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]
    if len(finished) != budget:
        problems.append(f"{len(finished)} trials finished, the budget is {budget}")
    client = MlflowClient(f"sqlite:///{runs / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("s")
    if experiment is None:
        return [*problems, "no MLflow experiment"]
    children = {
        r.data.tags["villagelab.trial"]: r.info.status
        for r in client.search_runs([experiment.experiment_id], max_results=1000)
        if r.data.tags.get("villagelab.kind") == "trial"
    }
    for t in trials:
        status = children.get(str(t.number))
        if status == "RUNNING":
            problems.append(f"trial {t.number}: its MLflow run left RUNNING")
        elif status is None and t.state != TrialState.FAIL:
            problems.append(f"trial {t.number} ({t.state.name}) has no MLflow run")
        elif t in finished and status != "FINISHED":
            problems.append(f"trial {t.number} finished, its MLflow run {status}")
    return problems


def ours(records: Path) -> list[str]:
    """Living processes started with this sweep's records folder in their environment."""
    needle = f"VILLAGELAB_PROCESS_RECORDS={records}".encode()
    found = []
    for p in psutil.process_iter(["pid", "name"]):
        try:
            mine = needle in Path(f"/proc/{p.pid}/environ").read_bytes()
            if mine and p.pid != os.getpid() and p.status() != psutil.STATUS_ZOMBIE:
                found.append(f"{p.pid} {p.name()}")
        except (OSError, psutil.Error):
            continue
    return found


def point(root: Path, config: Path, ray: bool, at: int | None, after: float | None) -> str:
    """One kill and its resume; '' if all is well, else what went wrong."""
    runs = root / (f"at-{at}" if at is not None else f"after-{after:.2f}s")
    note = ""
    env = {**os.environ, "VILLAGELAB_PROCESS_RECORDS": str(root / "records")}
    command = search(runs, config, ray)
    if at is not None:
        done = subprocess.run(
            command,
            env={**env, "VILLAGELAB_INTERRUPT_AT": str(at)},
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 137 or f"interrupted at checkpoint {at}:" not in done.stderr:
            return f"not interrupted (exit {done.returncode}): {done.stderr[-500:]}"
    else:
        assert after is not None
        started = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        while not list(runs.glob(".mlflow.db.*.tmp")):  # the store's creation has begun
            if started.poll() is not None or (runs / "mlflow.db").exists():
                started.kill()
                started.wait()
                return MISSED
            time.sleep(0.002)
        try:
            started.wait(timeout=after)
            return "finished before the kill"
        except subprocess.TimeoutExpired:
            started.send_signal(signal.SIGKILL)
            started.wait()
        if not list(runs.glob(".mlflow.db.*.tmp")):
            note = " (after the store was made)"
    resumed = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if resumed.returncode != 0 or "Traceback" in resumed.stderr:
        return f"resume exit {resumed.returncode}: {resumed.stderr[-800:]}"
    problems = accounted(runs)
    left = ours(root / "records")
    if left:
        problems.append(f"orphans: {left}")
    return "; ".join(problems) or note


def checkpoints(root: Path, config: Path, ray: bool) -> list[str]:
    log = root / "checkpoints.log"
    env = {
        **os.environ,
        "VILLAGELAB_PROCESS_RECORDS": str(root / "records"),
        "VILLAGELAB_CHECKPOINTS": str(log),
    }
    command = search(root / "reference", config, ray)
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return log.read_text().splitlines()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ray", action="store_true", help="on a local Ray cluster (1 worker)")
    parser.add_argument("--points", help="checkpoints to kill at, e.g. 1,2,5 (default: all)")
    parser.add_argument(
        "--store", type=float, default=0.0, help="SIGKILLs this many s into the store's making"
    )
    parser.add_argument("--step", type=float, default=0.1)
    parser.add_argument("--no-checkpoints", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="killsweep-"))
    config = root / "search.yaml"
    config.write_text("scenarios: [public_fact]\nseeds: 0\n")
    before = ours(root / "records")
    passed = checkpoints(root, config, args.ray)
    print(f"{len(passed)} checkpoints in an uninterrupted search ({root})", flush=True)
    every = range(1, len(passed) + 1)
    wanted = [int(n) for n in args.points.split(",")] if args.points else every
    moments: list[tuple[int | None, float | None]] = [
        (n, None) for n in ([] if args.no_checkpoints else wanted)
    ]
    steps = round(args.store / args.step)
    moments += [(None, round(i * args.step, 3)) for i in range(steps + 1)] if args.store else []
    failed = 0
    for at, after in moments:
        clock = time.monotonic()
        said = point(root, config, args.ray, at, after)
        where = passed[at - 1] if at is not None else f"SIGKILL {after} s into the store's making"
        fine = not said or said.startswith(" (")
        verdict = f"ok{said}" if fine else f"FAILED {said}"
        failed += not fine and said not in ("finished before the kill", MISSED)
        print(f"{where}: {verdict} ({time.monotonic() - clock:.0f} s)", flush=True)
    print(f"orphans before: {before}; after: {ours(root / 'records')}")
    print(f"{len(moments)} points, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
