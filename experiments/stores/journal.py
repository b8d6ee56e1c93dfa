"""The Optuna journal file, kept whole: checked before it is read, repaired before anything
appends, and held by one driver at a time.

Optuna appends one JSON record per line. A driver killed mid-append leaves a last line
without its newline; Optuna skips it when reading, but the next append lands after it and
every later read fails (`JSONDecodeError`). So a driver truncates such a line away before it
appends (saying so), and a line damaged anywhere else is reported with its number and how to
recover — never a traceback. A file journal takes one driver: a second one is refused, with
the holder's pid and host, and pointed at PostgreSQL, which takes several.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import warnings
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from policies import InputError
from villagelab.safe_text import redact

if TYPE_CHECKING:
    from optuna.storages.journal import BaseJournalBackend

OP_CODES = range(11)  # optuna.storages.journal's JournalOperation: CREATE_STUDY … DISCARD_TRIALS


class JournalDamaged(InputError):
    """A journal line that is not a record Optuna wrote (exit 2), with how to recover."""


def _recovery(path: Path, good: int) -> str:
    keep = (
        f"keep its first {good} records (the study then resumes from them; later trials are "
        f"lost): mv {path} {path}.damaged && head -n {good} {path}.damaged > {path}"
        if good
        else f"move it aside (mv {path} {path}.damaged) and start the study again"
    )
    return f"Restore {path.name} from a backup, or {keep}"


def scan(path: Path) -> tuple[int, int | None]:
    """(complete records, the byte length they end at if a cut last line follows them, else
    None). A line in the middle that is not a record is `JournalDamaged`."""
    records, end = 0, 0
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.endswith(b"\n"):
                return records, end  # only the last line can lack its newline
            try:
                record: Any = json.loads(line)
                if not isinstance(record, dict) or record.get("op_code") not in OP_CODES:
                    raise ValueError("not an Optuna journal record")
            except (ValueError, UnicodeDecodeError) as exc:
                raise JournalDamaged(
                    f"{path}: line {number} is damaged ({str(exc)[:120]}); the {records} "
                    f"records before it are intact. {_recovery(path, records)}"
                ) from None
            records, end = records + 1, end + len(line)
    return records, None


def repair(path: Path) -> str | None:
    """Truncate a cut last line (a driver killed while appending), before anything appends;
    returns what was done, to be said. Call it only while holding the driver lock."""
    if not path.exists():
        return None
    records, end = scan(path)
    if end is None:
        return None
    cut = path.stat().st_size - end
    with open(path, "r+b") as fh:
        fh.truncate(end)
        fh.flush()
        os.fsync(fh.fileno())
    return (
        f"{path}: its last line was cut ({cut} bytes: a driver was killed while writing it); "
        f"truncated to the last complete record (line {records})"
    )


class HeldBackend:
    """Optuna's journal file backend whose appends, inside `held()`, are kept and written when
    it ends: one write and one fsync for a trial's many records (each parameter, attribute
    and constraint is a record) instead of one each. Reads see the held records after the
    file's, so Optuna replays them as if written; a driver killed inside loses them all, as
    if killed just before. Only one driver appends to a file journal (the driver lock), so no
    other record can come between the file's last one and the held ones."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._held: list[dict[str, Any]] = []
        self._depth = 0
        self._in_file = 0  # records in the file, as last read or appended

    def read_logs(self, log_number_from: int) -> list[dict[str, Any]]:
        if not self._held:
            logs = list(self._inner.read_logs(log_number_from))
            if logs:
                self._in_file = log_number_from + len(logs)
            return logs
        # the file cannot have grown while records are held: only this driver appends
        logs = (
            list(self._inner.read_logs(log_number_from)) if log_number_from < self._in_file else []
        )
        return logs + self._held[max(0, log_number_from - self._in_file) :]

    def append_logs(self, logs: list[dict[str, Any]]) -> None:
        if self._depth:
            self._held.extend(logs)
            return
        self._inner.append_logs(logs)
        self._in_file += len(logs)

    @contextmanager
    def held(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if not self._depth and self._held:  # written on the way out of an error too
                logs, self._held = self._held, []
                self._inner.append_logs(logs)
                start, self._in_file = self._in_file, self._in_file + len(logs)
                # read back at once: the file backend learns where they end, else the next
                # read would scan the whole journal from its first line to find its place
                for _ in self._inner.read_logs(start):
                    pass


def held(storage: Any) -> AbstractContextManager[None]:
    """Hold a file journal's appends until the block ends (see `HeldBackend`); nothing for
    another storage (an RDB writes each call in its own transaction)."""
    backend = getattr(storage, "_backend", None)
    return backend.held() if isinstance(backend, HeldBackend) else nullcontext()


def open_journal(path: Path) -> Any:
    """Optuna's storage on the journal file, after the file is checked: a damaged line or a
    record Optuna cannot replay is `JournalDamaged`, with the line or the cause."""
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    path.parent.mkdir(parents=True, exist_ok=True)
    records = scan(path)[0] if path.exists() else 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the journal backend is fine for this
            held_backend = HeldBackend(JournalFileBackend(str(path)))  # the backend's methods
            return JournalStorage(cast("BaseJournalBackend", held_backend))
    except Exception as exc:  # noqa: BLE001 - any replay failure means the records are damaged
        raise JournalDamaged(
            f"{path}: its {records} records do not replay ({type(exc).__name__}: "
            f"{str(exc)[:200]}): a record was altered. Restore {path.name} from a backup, or "
            "start a new study with another --study name in another --runs-dir"
        ) from None


def hold(runs_root: Path) -> IO[str]:
    """The driver lock of a runs folder's file journal, held until the returned file is
    closed (or the process ends, however it ends: the kernel releases it). Refused, naming
    the holder, when another driver has it."""
    runs_root.mkdir(parents=True, exist_ok=True)
    path = runs_root / ".driver.lock"
    fh = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - returned, held open
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        holder = fh.read().strip() or "another process"
        fh.close()
        raise InputError(
            f"{runs_root}: another driver ({holder}) is searching with this runs folder's "
            "journal file, which takes one driver at a time. Wait for it to finish, use "
            "another --runs-dir, or let several drivers share a study through PostgreSQL: "
            "--storage postgresql://user@host/db"
        ) from None
    fh.seek(0)
    fh.truncate()
    fh.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
    fh.flush()
    return fh


@contextmanager
def claimed(runs_root: Path, path: Path, storage_url: str | None) -> Iterator[list[str]]:
    """What a driver does before it opens a file journal, for as long as it drives: hold the
    driver lock (one driver per journal file), and first cut a half-written last line away;
    yields what was repaired. Nothing for an RDB URL. The lock goes however the drive ends."""
    if storage_url is not None:
        yield []
        return
    lock = hold(runs_root)
    try:
        note = repair(path)
        yield [note] if note else []
    finally:
        lock.close()


def refuse_vanished(study: str, storage: Any, tracker: Any, storage_url: str | None) -> None:
    """A study that MLflow has trial runs for, but whose Optuna record is gone (a deleted,
    emptied or replaced journal), is refused: starting it again would reset its budget and
    number its trials from 0 a second time beside the runs already logged."""
    import optuna

    if study in optuna.study.get_all_study_names(storage=storage):
        return
    where = redact(storage_url) if storage_url else "its journal file"
    runs = tracker.client.search_runs(
        [tracker.experiment_id], "tags.`villagelab.kind` = 'trial'", max_results=1000
    )
    if not runs:
        return
    raise InputError(
        f"study {study!r} has {len(runs)}{'+' if len(runs) == 1000 else ''} trial runs in "
        f"MLflow ({redact(tracker.uri)}) but no record in its Optuna storage ({where}): the "
        "journal was deleted, emptied or replaced. Restore it from a backup; starting the "
        "study again would reset its budget and repeat its trial numbers. Or start a new "
        "study with another --study name."
    )
