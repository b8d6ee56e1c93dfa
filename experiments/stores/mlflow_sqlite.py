"""The runs folder's MLflow SQLite store: made whole or not at all, and tied to its folder.

MLflow creates its tables on first use through a chain of migrations (about 2 s); a command
killed in that window left a store on which every later command failed (`table
_alembic_tmp_experiments already exists`). Here a new store is made in a temporary file and
linked into place only once complete (a link, not a rename: two commands making it at once
both end up on the same store). A store found unfinished (by an older villagelab) is set
aside and made anew if it holds no runs, and refused with what to do if it does.

Artifact locations are absolute file URIs under the runs folder. A copied or moved folder
would go on writing into the original, so a store whose experiments point into another runs
folder is refused.

A new store is in write-ahead-log mode: each MLflow write commits by appending to
`mlflow.db-wal` instead of creating, syncing and deleting a rollback journal (a search
trial's writes ~5 ms faster; readers such as `villagelab ui` no longer block the driver).
The file must be on a local disk (SQLite's WAL needs shared memory: not on a network
filesystem; a tracking server is the way past one machine). A writer killed mid-transaction
leaves frames in the WAL that the next opener ignores, as it would roll back a hot journal.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
from pathlib import Path

from policies import InputError

JOURNAL_MODE = "WAL"  # of a new store (see above)


def _open(path: Path) -> contextlib.closing[sqlite3.Connection]:
    """The existing store, opened read-write though only read: a command killed mid-write
    leaves a hot journal, which only a writer may roll back (a read-only connection fails
    with 'attempt to write a readonly database'). mode=rw never creates the file."""
    return contextlib.closing(sqlite3.connect(f"file:{path}?mode=rw", uri=True))


def _tables(db: sqlite3.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def unfinished(path: Path) -> str | None:
    """Why the store's schema is unfinished (a creation or migration was killed), or None."""
    with _open(path) as db:
        tables = _tables(db)
        leftovers = sorted(t for t in tables if t.startswith("_alembic_tmp_"))
        if leftovers:
            return f"a migration's temporary table {leftovers[0]} is left over"
        if "alembic_version" not in tables:
            return "it has no schema version"
        if not db.execute("SELECT version_num FROM alembic_version").fetchall():
            return "its schema version was never recorded"
    return None


def _holds_runs(path: Path) -> bool:
    with _open(path) as db:
        tables = _tables(db)
        return any(
            db.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone()
            for t in ("runs", "registered_models")
            if t in tables
        )


def _create(path: Path) -> None:
    """A complete store at `path`, or none: made in a temp file, linked into place."""
    import sqlalchemy
    from mlflow.store.db.utils import _initialize_tables

    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    engine = sqlalchemy.create_engine(f"sqlite:///{tmp}")
    try:
        _initialize_tables(engine)
        engine.dispose()
        with contextlib.closing(sqlite3.connect(tmp)) as db:
            db.execute(f"PRAGMA journal_mode={JOURNAL_MODE}")  # kept in the file: once
        with contextlib.suppress(FileExistsError):  # another command made it first: theirs
            os.link(tmp, path)
    finally:
        engine.dispose()
        tmp.unlink(missing_ok=True)


def _sweep(path: Path) -> None:
    """Temp stores of commands killed while making one (the store exists: they are done)."""
    for tmp in path.parent.glob(f".{path.name}.*.tmp*"):  # with its -journal, -wal, -shm
        tmp.unlink(missing_ok=True)


def _moved_from(path: Path) -> str | None:
    """The runs folder this store's experiments write artifacts into, if not this one. A
    store with no artifacts folder beside it keeps them elsewhere by design (a --tracking-uri
    naming a SQLite file outside the runs folder): nothing to compare."""
    if not (path.parent / "artifacts").is_dir():
        return None
    here = (path.parent / "artifacts").resolve().as_uri()
    with _open(path) as db:
        if "experiments" not in _tables(db):
            return None
        for (location,) in db.execute("SELECT artifact_location FROM experiments"):
            # villagelab's experiments write to <runs>/artifacts/<name>
            folder = str(location or "").rstrip("/").rsplit("/", 1)[0]
            if folder.startswith("file://") and folder.endswith("/artifacts") and folder != here:
                return folder.removesuffix("/artifacts")
    return None


def prepare(path: Path) -> str | None:
    """The store at `path` ready for MLflow: made if missing, repaired if left unfinished
    with nothing in it; returns what was repaired, to be said. An unfinished store that
    holds runs, or one copied from another runs folder, is refused."""
    path.parent.mkdir(parents=True, exist_ok=True)
    note = None
    if path.exists() and path.stat().st_size > 0:
        try:
            problem = unfinished(path)
        except sqlite3.DatabaseError as exc:
            raise InputError(
                f"{path}: not a readable SQLite database ({exc}): the MLflow store is "
                "damaged. Restore it from a backup, or start a new --runs-dir"
            ) from None
        if problem is None:
            _sweep(path)
            _refuse_moved(path)
            return None
        if _holds_runs(path):
            raise InputError(
                f"{path}: its MLflow schema is unfinished ({problem}: a command was killed "
                "while migrating it) and it holds runs. Back it up, then run "
                f"'mlflow db upgrade sqlite:///{path.resolve()}'; or restore it from a backup"
            )
        aside = path.with_name(f"{path.name}.unfinished")
        os.replace(path, aside)
        note = (
            f"{path}: its MLflow schema was left unfinished ({problem}: a command was killed "
            f"while creating it); it held no runs, so it was set aside as {aside.name} and "
            "made anew"
        )
    elif path.exists():  # an empty file: nothing was ever written
        path.unlink()
    _create(path)
    _sweep(path)
    return note


def _refuse_moved(path: Path) -> None:
    origin = _moved_from(path)
    if origin is None:
        return
    raise InputError(
        f"{path}: this runs folder was copied or moved from {origin.removeprefix('file://')}: "
        "its MLflow store records artifact locations there, so new artifacts would be "
        "written into that folder, not this one. Use the runs folder where it was made (move "
        "it back), or start a new one with another --runs-dir"
    )
