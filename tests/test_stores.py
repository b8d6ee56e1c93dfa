"""Stores that survive (issue 17): the Optuna journal, the MLflow SQLite store and the champion
alias, each after the damage a kill or a hand leaves — real Optuna, real MLflow, real SQLite;
interruptions at chosen statements or bytes, never timed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from experiments.search.study import counted, recover_dead, storage_for
from experiments.stores import journal
from policies import InputError

from .conftest import villagelab


def small_journal(path: Path, trials: int = 3) -> None:
    """A real journal: a study with a few finished trials, written by Optuna."""
    study = optuna.create_study(study_name="s", storage=storage_for(None, path))
    for _ in range(trials):
        trial = study.ask()
        study.tell(trial, trial.suggest_float("x", 0, 1))


# --- the journal ----------------------------------------------------------------------------------
def test_a_cut_last_line_poisons_the_journal_unless_it_is_truncated_first(tmp_path):
    """What a kill mid-append leaves: the last record without its end. Appending after it (as
    a plain resume would) makes every later read fail; repaired first, the study goes on."""
    path = tmp_path / "optuna.journal"
    small_journal(path)
    whole = path.read_bytes()
    last = whole.rstrip(b"\n").rsplit(b"\n", 1)[1]
    cut = whole[: len(whole) - len(last) // 2 - 1]  # the last line, half written

    poisoned = tmp_path / "poisoned.journal"
    poisoned.write_bytes(cut)
    study = optuna.load_study(study_name="s", storage=storage_for(None, poisoned))
    with pytest.raises(AttributeError):  # Optuna appends after the cut line: its record is
        study.ask()  # glued to the cut one, and lost (a bare AttributeError from Optuna)
    with pytest.raises(journal.JournalDamaged, match=r"line \d+ is damaged"):
        storage_for(None, poisoned)  # never a JSONDecodeError traceback

    path.write_bytes(cut)
    note = journal.repair(path)
    assert note is not None and "truncated to the last complete record" in note
    assert whole.startswith(path.read_bytes()) and path.read_bytes().endswith(b"\n")
    study = optuna.load_study(study_name="s", storage=storage_for(None, path))
    study.tell(study.ask(), 0.5)
    trials = optuna.load_study(study_name="s", storage=storage_for(None, path)).trials
    # the cut record was trial 2's result: trial 2 is left running (a resume fails and
    # re-queues it), and the new trial 3 is recorded whole
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 2 + [
        TrialState.RUNNING,
        TrialState.COMPLETE,
    ]
    assert journal.repair(path) is None  # a whole journal is left alone


def test_a_damaged_line_is_reported_with_its_number_and_how_to_recover(tmp_path):
    path = tmp_path / "optuna.journal"
    small_journal(path)
    lines = path.read_bytes().split(b"\n")
    lines[4] = lines[4][:10] + b"\xff#" + lines[4][12:]  # a flipped byte mid-file
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(journal.JournalDamaged) as caught:
        storage_for(None, path)
    message = str(caught.value)
    assert "line 5 is damaged" in message and "the 4 records before it are intact" in message
    assert f"head -n 4 {path}.damaged > {path}" in message
    with pytest.raises(journal.JournalDamaged):
        journal.repair(path)  # damage in the middle is never truncated away silently
    # the advice works: the kept records open as a study
    os.rename(path, f"{path}.damaged")
    subprocess.run(f"head -n 4 {path}.damaged > {path}", shell=True, check=True)
    assert optuna.load_study(study_name="s", storage=storage_for(None, path))


def test_a_record_that_does_not_replay_is_reported_not_raised(tmp_path):
    path = tmp_path / "optuna.journal"
    small_journal(path)
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if json.loads(line)["op_code"] == 6)
    record = json.loads(lines[at])
    record["state"] = 99  # valid JSON, not a state Optuna knows
    lines[at] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(journal.JournalDamaged, match="do not replay .*99 is not a valid"):
        storage_for(None, path)


def test_a_second_driver_on_a_file_journal_is_refused_naming_the_first(tmp_path):
    held = journal.hold(tmp_path)
    try:
        with pytest.raises(InputError) as caught:
            journal.hold(tmp_path)
        message = str(caught.value)
        assert f"pid {os.getpid()} on {socket.gethostname()}" in message
        assert "--storage postgresql://" in message
    finally:
        held.close()
    journal.hold(tmp_path).close()  # released with its holder


def test_the_driver_lock_goes_with_a_killed_driver(tmp_path):
    """The kernel releases it however the holder ends: a SIGKILLed driver never blocks the
    next one."""
    code = (
        "import sys, os; from pathlib import Path; from experiments.stores import journal; "
        f"journal.hold(Path({str(tmp_path)!r})); print('held', flush=True); "
        "os.kill(os.getpid(), 9)"
    )
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert done.stdout.strip() == "held" and done.returncode == -9
    journal.hold(tmp_path).close()


# --- re-queued trials ----------------------------------------------------------------------------
def _dead_driver() -> str:
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    return f"{socket.gethostname()}:{child.stdout.strip()}"


def test_a_trial_whose_driver_died_twice_is_still_evaluated(tmp_path):
    """A driver's death is not the trial's fault: the candidate is re-queued each time (up to
    a limit), is finally evaluated, and only that evaluation counts against the budget."""
    from experiments.search.drivers import alive
    from experiments.search.study import DRIVER_DEATHS

    study = optuna.create_study(
        study_name="s", storage=storage_for(None, tmp_path / "j"), direction="maximize"
    )
    first = study.ask()
    x = first.suggest_float("x", 0, 1)
    for deaths in (1, 2):  # the driver dies under the trial, twice
        first.set_user_attr("driver", _dead_driver())
        assert recover_dead(alive, study) == [first.number]
        first = study.ask()  # the next driver takes the re-queued trial first
        assert first.suggest_float("x", 0, 1) == x
        assert first.user_attrs["driver_deaths"] == deaths
    study.tell(first, x)
    assert counted(study) == 1  # one trial evaluated; the interrupted ones do not count
    assert study.best_trial.params == {"x": x}

    # a trial that keeps killing its driver is failed for good at the limit, and counted
    doomed = study.ask()
    doomed.suggest_float("x", 0, 1)
    for _ in range(DRIVER_DEATHS):
        doomed.set_user_attr("driver", _dead_driver())
        recover_dead(alive, study)
        waiting = study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
        if not waiting:
            break
        doomed = study.ask()
    assert not study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    assert counted(study) == 2


# --- the MLflow SQLite store ---------------------------------------------------------------------
KILLER = """
import os, sys, sqlalchemy
from sqlalchemy import event
pattern, nth, seen = sys.argv[2], int(sys.argv[3]), [0]
@event.listens_for(sqlalchemy.engine.Engine, "before_cursor_execute")
def die(conn, cursor, statement, params, context, executemany):
    if pattern in statement:
        seen[0] += 1
        if seen[0] == nth:
            os._exit(9)  # killed at this statement, as kill -9 would
if sys.argv[4] == "plain":  # how villagelab made the store before: MLflow in place
    from mlflow.tracking import MlflowClient
    MlflowClient(tracking_uri=f"sqlite:///{sys.argv[1]}").search_experiments()
else:
    from experiments.tracking.records import mlflow_client
    mlflow_client(f"sqlite:///{sys.argv[1]}").search_experiments()
"""


def kill_while_creating(db: Path, pattern: str, nth: int, how: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", KILLER, str(db), pattern, str(nth), how],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, "MLFLOW_DISABLE_TELEMETRY": "true"},
    )
    assert done.returncode == 9, done.stderr[-2000:]


def usable(db: Path) -> None:
    from experiments.tracking.records import mlflow_client

    client = mlflow_client(f"sqlite:///{db}")
    artifacts = db.parent / "artifacts" / "e"
    artifacts.mkdir(parents=True)  # as villagelab makes it, beside the store
    experiment = client.create_experiment("e", artifact_location=artifacts.resolve().as_uri())
    client.create_run(experiment)
    client.create_registered_model("m")


@pytest.mark.slow
@pytest.mark.parametrize(
    "pattern, nth",
    [
        ("CREATE TABLE", 1),
        ("CREATE TABLE", 4),
        ("_alembic_tmp_", 1),
        ("_alembic_tmp_", 5),
        ("alembic_version", 2),
    ],
)
def test_a_kill_while_the_store_is_made_leaves_no_half_made_store(tmp_path, pattern, nth):
    db = tmp_path / "mlflow.db"
    kill_while_creating(db, pattern, nth, "villagelab")
    assert not db.exists()  # only a temp file was ever half made
    usable(db)
    assert not list(tmp_path.glob(".mlflow.db.*"))  # the killed command's temp is swept


@pytest.mark.slow
def test_a_store_left_unfinished_by_an_older_villagelab_is_made_anew(tmp_path, capsys):
    db = tmp_path / "mlflow.db"
    kill_while_creating(db, "_alembic_tmp_", 3, "plain")
    from experiments.stores.mlflow_sqlite import unfinished

    assert "_alembic_tmp_" in (unfinished(db) or "")
    usable(db)
    assert "set aside as mlflow.db.unfinished and made anew" in " ".join(
        capsys.readouterr().err.split()
    )


def test_an_unfinished_store_that_holds_runs_is_refused(tmp_path):
    import sqlite3

    from experiments.stores.mlflow_sqlite import prepare

    db = tmp_path / "mlflow.db"
    usable(db)
    with sqlite3.connect(db) as con:  # as a migration killed midway leaves it
        con.execute("CREATE TABLE _alembic_tmp_experiments (x INTEGER)")
    with pytest.raises(InputError, match="holds runs.*mlflow db upgrade"):
        prepare(db)


MID_WRITE = """
import os, signal, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA cache_size = 1")  # pages spill to the file: the journal must be hot
db.execute("BEGIN")
db.execute("CREATE TABLE scratch (a TEXT)")
for _ in range(2000):
    db.execute("INSERT INTO scratch VALUES (?)", ("x" * 200,))
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_new_store_writes_ahead_to_a_log(tmp_path):
    """Each MLflow commit appends to mlflow.db-wal (no rollback journal made and deleted)."""
    import sqlite3

    db = tmp_path / "mlflow.db"
    usable(db)
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert not list(tmp_path.glob(".mlflow.db.*"))  # nothing left of the temp store


@pytest.mark.parametrize("mode, left", [("WAL", "mlflow.db-wal"), ("DELETE", "mlflow.db-journal")])
def test_a_store_a_killed_writer_left_mid_write_is_rolled_back_and_used(
    tmp_path, monkeypatch, mode, left
):
    """A new store (write-ahead log) and one an older villagelab made (rollback journal)."""
    from experiments.stores import mlflow_sqlite as sqlite_store
    from experiments.stores.mlflow_sqlite import prepare
    from experiments.tracking.records import mlflow_client

    monkeypatch.setattr(sqlite_store, "JOURNAL_MODE", mode)
    db = tmp_path / "mlflow.db"
    usable(db)
    killed = subprocess.run([sys.executable, "-c", MID_WRITE, str(db)], check=False)
    assert killed.returncode == -signal.SIGKILL
    assert (tmp_path / left).stat().st_size > 0  # what the kill left
    assert prepare(db) is None  # as the next command's start checks it: nothing to repair
    client = mlflow_client(f"sqlite:///{db}")
    assert {e.name for e in client.search_experiments()} == {"e", "Default"}
    assert client.get_registered_model("m").name == "m"
    if mode == "DELETE":
        assert not (tmp_path / left).exists()  # the hot journal was rolled back
    import sqlite3

    with sqlite3.connect(db) as con:  # rolled back: scratch never was
        assert con.execute("PRAGMA journal_mode").fetchone()[0].upper() == mode
        assert not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'scratch'").fetchone()


def test_a_copied_runs_folder_is_refused_and_the_original_still_works(tmp_path):
    from experiments.tracking.records import mlflow_client

    origin = tmp_path / "a" / "runs"
    usable(origin / "mlflow.db")
    copy = tmp_path / "b" / "runs"
    shutil.copytree(origin, copy)
    with pytest.raises(InputError) as caught:
        mlflow_client(f"sqlite:///{copy / 'mlflow.db'}")
    assert f"copied or moved from {origin.resolve()}" in str(caught.value)
    assert mlflow_client(f"sqlite:///{origin / 'mlflow.db'}").get_experiment_by_name("e")


def test_a_store_named_by_tracking_uri_outside_the_runs_folder_is_not_taken_for_a_copy(tmp_path):
    """--tracking-uri sqlite:///elsewhere.db with the artifacts under --runs-dir: no
    artifacts folder beside the store, so nothing was moved."""
    from experiments.tracking.records import mlflow_client

    db = tmp_path / "elsewhere" / "mlflow.db"
    client = mlflow_client(f"sqlite:///{db}")
    artifacts = (tmp_path / "runs" / "artifacts" / "e").resolve()
    client.create_experiment("e", artifact_location=artifacts.as_uri())
    from experiments.tracking import records

    records._PREPARED.clear()  # as a new command would find it
    assert mlflow_client(f"sqlite:///{db}").get_experiment_by_name("e")


# --- the champion alias --------------------------------------------------------------------------
def test_a_lost_champion_alias_is_restored_from_the_registry_not_the_start_policy(tmp_path):
    from experiments.promotion.champion import ALIAS, HELD_BY, MODEL, Registry
    from experiments.tracking.records import mlflow_client
    from policies import Policy

    db = tmp_path / "runs" / "mlflow.db"
    uri = f"sqlite:///{db}"
    usable(db)
    client = mlflow_client(uri)
    run = client.create_run(client.get_experiment_by_name("e").experiment_id)
    registry = Registry(uri)
    for trial in ("start", "1", "2"):
        registry.promote(run.info.run_id, str(tmp_path), Policy(), 0.5, "s", trial)
    assert registry.current_version() == 3
    registry.rollback(to=2)  # the champion is version 2, not the latest
    client.delete_registered_model_alias(MODEL, ALIAS)
    assert Registry(uri).current_version() == 2  # where the registry recorded it
    assert str(client.get_model_version_by_alias(MODEL, ALIAS).version) == "2"
    # a registry from before the record: the latest promotion, never a new start version
    client.delete_registered_model_tag(MODEL, HELD_BY)
    client.delete_registered_model_alias(MODEL, ALIAS)
    assert Registry(uri).current_version() == 3
    assert len(client.search_model_versions(f"name='{MODEL}'")) == 3


# --- end to end, through the command line ---------------------------------------------------------
@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    root = tmp_path_factory.mktemp("stores")
    (root / "tiny.yaml").write_text("scenarios: [public_fact]\nseeds: 0-1\n")
    args = ["search", "--study", "tiny", "--config", str(root / "tiny.yaml"), "--serial"]
    result = villagelab(*args, "--trials", "2", "--runs-dir", str(root / "runs"))
    assert result.returncode == 0, result.stderr
    return root, args


@pytest.mark.slow
def test_search_repairs_a_cut_journal_then_resumes_with_every_trial_accounted_for(searched):
    root, args = searched
    runs = root / "runs"
    path = runs / "optuna.journal"
    path.write_bytes(path.read_bytes() + b'{"op_code":4,"worker_id":"x","study_id":0,"da')
    result = villagelab(*args, "--trials", "3", "--runs-dir", str(runs))
    assert result.returncode == 0, result.stderr
    assert "truncated to the last complete record" in " ".join(result.stderr.split())
    study = optuna.load_study(study_name="tiny", storage=storage_for(None, path))
    assert counted(study) == 3 and [t.number for t in study.trials] == [0, 1, 2]
    report = villagelab("report", "--study", "tiny", "--runs-dir", str(runs))
    assert report.returncode == 0, report.stderr


@pytest.mark.slow
@pytest.mark.parametrize("how", ["deleted", "emptied"])
def test_a_study_whose_journal_vanished_is_refused_not_restarted(searched, tmp_path, how):
    root, args = searched
    runs = root / "runs"
    kept = (runs / "optuna.journal").read_bytes()
    try:
        if how == "deleted":
            (runs / "optuna.journal").unlink()
        else:
            (runs / "optuna.journal").write_bytes(b"")
        result = villagelab(*args, "--trials", "5", "--runs-dir", str(runs))
        assert result.returncode == 2 and "Traceback" not in result.stderr
        message = " ".join(result.stderr.split())
        assert "trial runs in MLflow" in message and "journal was deleted, emptied" in message
        from experiments.promotion.champion import Registry

        versions = Registry(f"sqlite:///{runs / 'mlflow.db'}").history()
        assert all(v.trial != "start" for v in versions[1:])  # no start policy re-registered
    finally:
        (runs / "optuna.journal").write_bytes(kept)


@pytest.mark.slow
def test_a_damaged_journal_stops_report_and_search_with_exit_2(searched, tmp_path):
    root, args = searched
    runs = root / "runs"
    path = runs / "optuna.journal"
    kept = path.read_bytes()
    try:
        lines = kept.split(b"\n")
        lines[3] = b"{not json"
        path.write_bytes(b"\n".join(lines))
        for command in (["report", "--study", "tiny"], [*args, "--trials", "5"]):
            result = villagelab(*command, "--runs-dir", str(runs))
            assert result.returncode == 2, result.stderr
            assert "Traceback" not in result.stderr and "JSONDecodeError" not in result.stderr
            assert "line 4 is damaged" in " ".join(result.stderr.split())
    finally:
        path.write_bytes(kept)


@pytest.mark.slow
def test_a_second_search_on_the_same_journal_is_refused(searched):
    root, args = searched
    held = journal.hold(root / "runs")
    try:
        result = villagelab(*args, "--trials", "5", "--runs-dir", str(root / "runs"))
    finally:
        held.close()
    assert result.returncode == 2 and "Traceback" not in result.stderr
    message = " ".join(result.stderr.split())
    assert f"another driver (pid {os.getpid()} on" in message and "postgresql" in message


def test_a_store_that_is_not_a_database_is_refused_not_a_traceback(tmp_path):
    from experiments.tracking.records import mlflow_client

    db = tmp_path / "mlflow.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)  # a header, then garbage
    with pytest.raises(InputError, match="not a readable SQLite database"):
        mlflow_client(f"sqlite:///{db}")
