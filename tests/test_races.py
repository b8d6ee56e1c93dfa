"""Two drivers that start the same thing at the same instant (issue 17, item 4): the MLflow
experiment of a study, the registered model of the champion, the Optuna study.

Each round holds both processes at a barrier placed between "found nothing" and "create"
(experiments.stores.creation.BEFORE_CREATE), so both create on every round and one of them always
loses the race: the test never passes by luck of timing. 20 rounds on the runs folder's own
stores (SQLite, journal file) and 20 on PostgreSQL with an MLflow tracking server.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest

ROUNDS = 20
HASHES = {"harness": "h", "instrument": "i", "agent": "reference", "agent_hash": "a"}


KINDS = ("experiment", "model", "study")


def first_candidate(study: Any) -> tuple[int, dict[str, Any]]:
    """Ask the study for a trial and sample a whole policy for it, as a global search does."""
    from experiments.search.surface import sample
    from policies import WHITELIST, load_policy

    start = load_policy(Path(__file__).resolve().parent.parent / "policies" / "baseline.yaml")
    trial = study.ask()
    sample(trial, "global", start, 0.1, 1, {p.name for p in WHITELIST})
    return trial.number, trial.params


def _driver(
    uri: str,
    storage: str | None,
    folder: str,
    barrier: Any,
    results: Any,
    index: int,
) -> None:
    """One driver: ROUNDS get-or-creates of each kind, each held at the barrier before creating
    (one process for all kinds: starting one costs seconds)."""
    import os

    os.environ["MLFLOW_DISABLE_TELEMETRY"] = "true"
    from experiments.promotion.champion import Registry
    from experiments.search.study import open_study, storage_for
    from experiments.stores import creation
    from experiments.tracking.records import mlflow_client
    from experiments.tracking.search_runs import Tracker

    held: list[tuple[str, str]] = []

    def hold(what: str, name: str) -> None:
        held.append((what, name))
        barrier.wait(timeout=120)

    creation.BEFORE_CREATE.append(hold)
    client = mlflow_client(uri)
    registry = Registry(uri)
    optuna_storage = storage_for(storage, Path(folder) / "optuna.journal")
    outcome: list[tuple[str, str, Any]] = []
    candidates: list[tuple[int, dict[str, Any]]] = []  # each round's first trial, as asked
    try:
        for kind, n in ((kind, n) for kind in KINDS for n in range(ROUNDS)):
            name = f"{kind}-{n}"
            if kind == "experiment":
                got: Any = Tracker(uri, name, Path(folder) / name).experiment_id
            elif kind == "model":
                registry.ensure_model()
                got = client.get_registered_model("villagelab-policy").creation_timestamp
            else:
                study = open_study(name, optuna_storage, "global", HASHES)
                got = study._study_id
                candidates.append(first_candidate(study))
            outcome.append((kind, "ok", got))
            barrier.wait(timeout=120)  # both done with this round
            if kind == "model":  # the next round starts again from no registered model
                if index == 0:
                    client.delete_registered_model("villagelab-policy")
                barrier.wait(timeout=120)
    except Exception as exc:  # noqa: BLE001 - reported to the test, which fails on it
        outcome.append(("", "error", f"{type(exc).__name__}: {exc}"))
        barrier.abort()
    results.put((index, outcome, held, candidates))


def race(uri: str, storage: str | None, folder: Path) -> None:
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    drivers = [
        context.Process(target=_driver, args=(uri, storage, str(folder), barrier, results, i))
        for i in range(2)
    ]
    for d in drivers:
        d.start()
    got = {
        index: (outcome, held, candidates)
        for index, outcome, held, candidates in (results.get(timeout=900) for _ in drivers)
    }
    for d in drivers:
        d.join(timeout=60)
    (first, held_first, asked_first), (second, held_second, asked_second) = got[0], got[1]
    errors = [o for o in first + second if o[1] != "ok"]
    assert errors == [], errors
    assert len(first) == len(second) == ROUNDS * len(KINDS)
    # both drivers found nothing and created, on every round: one of them lost the race
    names = [
        ("registered_model", "villagelab-policy") if kind == "model" else (kind, f"{kind}-{n}")
        for kind in KINDS
        for n in range(ROUNDS)
    ]
    assert held_first == held_second == names
    # and both ended with the one thing the winner made
    assert first == second
    # both started the same new study at once: each evaluates a candidate of its own
    assert len(asked_first) == len(asked_second) == ROUNDS
    for (n1, params1), (n2, params2) in zip(asked_first, asked_second, strict=True):
        assert {n1, n2} == {0, 1}
        assert params1 != params2, "two drivers evaluate the same first candidate"


@pytest.fixture(scope="module")
def local_store(tmp_path_factory):
    """The runs folder's stores: MLflow in SQLite (created once: the race is on the names)."""
    from experiments.tracking.records import mlflow_client

    folder = tmp_path_factory.mktemp("races")
    uri = f"sqlite:///{folder / 'mlflow.db'}"
    mlflow_client(uri).search_experiments()  # the schema, made before the drivers start
    return uri, folder


def test_two_drivers_get_or_create_on_the_runs_folders_stores(local_store):
    uri, folder = local_store
    race(uri, None, folder)


@pytest.mark.slow
def test_two_drivers_get_or_create_on_postgresql_and_a_tracking_server(
    postgres, mlflow_server, tmp_path
):
    race(mlflow_server, postgres, tmp_path)


def test_two_drivers_of_a_new_study_ask_different_candidates_and_a_rerun_the_same(tmp_path):
    """Each driver has its own sampler: seeded by the driver, two drivers that open a new
    study at once would draw the same first random candidates; seeded by the trial number
    (handed out by the storage, one per trial), they cannot. A study run again from scratch
    draws what it drew before."""
    from experiments.search.study import open_study, storage_for

    def fresh(folder: Path) -> list[Any]:
        storage = storage_for(None, folder / "optuna.journal")
        return [open_study("s", storage, "global", HASHES) for _ in range(2)]  # both at once

    one, other = fresh(tmp_path / "a")
    asked = [first_candidate(one), first_candidate(other), first_candidate(one)]
    assert [n for n, _ in asked] == [0, 1, 2]
    assert asked[0][1] != asked[1][1] != asked[2][1] != asked[0][1]
    again, _ = fresh(tmp_path / "b")
    assert [first_candidate(again) for _ in range(3)] == asked
