"""Processes villagelab starts and must stop: the local Ray cluster's (GCS, raylet, dashboard,
its agents, workers) and the MLflow UI's server.

Whoever starts them records them in a file of its own — its pid and start time, the host, and
each process's pid and start time — in a private folder (`VILLAGELAB_PROCESS_RECORDS`, default
~/.local/state/villagelab/processes). On an orderly end (exit, Ctrl-C, SIGTERM) the starter
stops them and removes the record. After a kill -9 the record stays, and the next start sweeps
it: the recorded processes still alive, their descendants, and the processes that hold files
open in the recorded folder (a Ray cluster's session folder: its agents start after the
cluster is recorded and rename themselves) are stopped. A recorded process is ours only if its
pid *and* its start time match, so a reused pid is never hit; nothing is ever found by name
(`ray stop` would end every user's clusters). A start that can be killed half-way (ray.init,
before it returns the processes it started) is recorded before it begins with a mark, a random
value in the environment its processes inherit (`starting`): the processes started with that
mark in their environment are ours, whenever the start was cut, and so are those that hold
open a folder the start made (a renamed process may have overwritten its environment).
Linux only (/proc); elsewhere nothing is recorded or swept.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from villagelab.files import state_dir

from .files import atomic_write_json

PROC = Path("/proc")
MARK = "VILLAGELAB_STARTED_BY"  # in the environment of what a `starting` block starts
# what this process recorded, kept here too: stopped at exit even if no record could be written
_REMEMBERED: dict[str, tuple[set[Process], str | None]] = {}
_MARKS: dict[str, str] = {}  # kind → the mark its processes were started with
_CREATES: dict[str, tuple[str, float]] = {}  # kind → (folders it makes, when it began)


@dataclass(frozen=True, order=True)
class Process:
    pid: int
    start: int  # clock ticks since boot: with the pid, names one process for good

    def alive(self) -> bool:
        return started(self.pid) == self.start


def started(pid: int) -> int | None:
    """When a process started (clock ticks since boot); None if it is gone or a zombie."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # the name may hold spaces and parentheses
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def process(pid: int) -> Process | None:
    start = started(pid)
    return None if start is None else Process(pid, start)


def _parents() -> dict[int, int]:
    """pid → parent pid of every process we can see."""
    found: dict[int, int] = {}
    for entry in PROC.iterdir() if PROC.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        found[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    return found


def descendants(roots: Iterable[int]) -> list[Process]:
    """The living descendants of `roots` (not the roots themselves)."""
    parents = _parents()
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found: list[Process] = []
    todo = list(roots)
    while todo:
        for child in children.get(todo.pop(), []):
            p = process(child)
            if p is not None and p not in found:
                found.append(p)
                todo.append(child)
    return sorted(found)


def holding(folder: str) -> list[Process]:
    """The processes we can see that have a file under `folder` open, or work in it: a Ray
    session folder names its cluster's processes, even those that renamed themselves
    (ray::DashboardAgent) and were started after the cluster was recorded."""
    root = os.path.realpath(folder).rstrip("/") + "/"
    if root.count("/") < 4:  # /tmp/ray/session_…/ at least: never a whole tree
        return []
    found: list[Process] = []
    for entry in PROC.iterdir() if PROC.is_dir() and folder else ():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            links = [os.readlink(entry / "cwd")]
            links += [os.readlink(fd) for fd in (entry / "fd").iterdir()]
        except OSError:  # gone, or another user's
            continue
        if any((link.rstrip("/") + "/").startswith(root) for link in links):
            p = process(int(entry.name))
            if p is not None:
                found.append(p)
    return sorted(found)


def marked(mark: str | None) -> list[Process]:
    """The processes we can see that were started with `mark` in their environment (a
    process's environment as it was when it started: inherited, never changed later)."""
    if not mark:
        return []
    needle = f"{MARK}={mark}".encode()
    found: list[Process] = []
    for entry in PROC.iterdir() if PROC.is_dir() else ():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone, or another user's
            continue
        if needle in environ.split(b"\0"):
            p = process(int(entry.name))
            if p is not None:
                found.append(p)
    return sorted(found)


@contextmanager
def starting(kind: str, creates: str | None = None) -> Iterator[None]:
    """Around a start that may be killed before it returns what it started: the record is
    written first, with a mark put in the environment that the processes started meanwhile
    inherit (and that this process's later children do not), and `creates`, a pattern of the
    folders the start makes (those made since are held open by what it started). The mark
    alone is not enough: a process that renames itself (setproctitle: ray::RuntimeEnvAgent)
    may overwrite the copy of its environment that /proc shows."""
    mark = _MARKS.setdefault(kind, secrets.token_hex(12))
    if creates:
        _CREATES[kind] = (creates, time.time())
    before = os.environ.get(MARK)
    os.environ[MARK] = mark
    try:
        remember(kind, [])
        yield
    finally:
        if before is None:
            os.environ.pop(MARK, None)
        else:
            os.environ[MARK] = before


def records_dir() -> Path:
    return state_dir("processes", "VILLAGELAB_PROCESS_RECORDS")


def _record_path(kind: str, owner: Process) -> Path:
    return records_dir() / f"{kind}-{socket.gethostname()}-{owner.pid}-{owner.start}.json"


def remember(kind: str, processes: Iterable[Process], folder: str | None = None) -> Path | None:
    """Record (or extend) what this process started of `kind`, and the folder whose open
    files name its other processes; None where /proc is missing."""
    me = process(os.getpid())
    if me is None:
        return None
    path = _record_path(kind, me)
    known = set(recorded(path))
    mine, before = _REMEMBERED.get(kind, (set(), None))
    _REMEMBERED[kind] = (mine | set(processes), folder or before)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write_json(
            path,
            {
                "kind": kind,
                "host": socket.gethostname(),
                "owner": [me.pid, me.start],
                "processes": [[p.pid, p.start] for p in sorted(known | set(processes))],
                "folder": folder or _folder(path),
                "mark": _MARKS.get(kind),
                "creates": list(_CREATES[kind]) if kind in _CREATES else None,
            },
        )
    except OSError:  # no writable state folder: stopped at exit all the same, just not swept
        return None
    return path


def recorded(path: Path) -> list[Process]:
    try:
        data = json.loads(path.read_text())
        return [Process(int(pid), int(start)) for pid, start in data["processes"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _text(path: Path, key: str) -> str | None:
    try:
        value = json.loads(path.read_text()).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) and value else None


def _folder(path: Path) -> str | None:
    return _text(path, "folder")


def _created(path: Path) -> list[str]:
    """The folders a start cut short made: those its pattern matches, made since it began."""
    try:
        pattern, since = json.loads(path.read_text())["creates"]
        root, _, name = str(pattern).rpartition("/")
        folders = Path(root).glob(name) if root and name else []
        return [str(f) for f in folders if f.is_dir() and f.stat().st_ctime >= float(since) - 1]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


def _ours(path: Path) -> list[Process]:
    """A record's processes still alive, their descendants, those holding its folder or a
    folder its cut start made, and those started with its mark."""
    listed = [p for p in recorded(path) if p.alive()]
    folders = [f for f in [_folder(path), *_created(path)] if f]
    return sorted(
        {
            *listed,
            *descendants(p.pid for p in listed),
            *(p for folder in folders for p in holding(folder)),
            *marked(_text(path, "mark")),
        }
    )


def forget(kind: str) -> None:
    me = process(os.getpid())
    if me is not None:
        _record_path(kind, me).unlink(missing_ok=True)


def stop(processes: Iterable[Process], grace: float = 10.0) -> list[Process]:
    """SIGTERM, then SIGKILL after `grace` seconds, to those of `processes` that are still
    the same processes; returns those that were alive."""
    targets = sorted({p for p in processes if p.alive()})
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in targets:
            if p.alive():
                try:
                    os.kill(p.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
        deadline = time.monotonic() + grace
        while any(p.alive() for p in targets) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not any(p.alive() for p in targets):
            break
    return targets


def stop_recorded(kind: str) -> list[Process]:
    """Stop what this process recorded of `kind`, with any descendants they started since."""
    me = process(os.getpid())
    if me is None:
        return []
    path = _record_path(kind, me)
    mine, folder = _REMEMBERED.pop(kind, (set(), None))
    alive = [p for p in mine if p.alive()]
    found = [*alive, *descendants(p.pid for p in alive), *(holding(folder) if folder else [])]
    found += marked(_MARKS.pop(kind, None))
    _CREATES.pop(kind, None)
    stopped = stop([*_ours(path), *found])
    path.unlink(missing_ok=True)
    return stopped


def sweep() -> list[Process]:
    """Stop the processes recorded by owners on this host that are gone (killed before they
    could stop them), and their descendants; remove those records. Returns what was stopped."""
    folder = records_dir()
    if not folder.is_dir() or not PROC.is_dir():
        return []
    host = socket.gethostname()
    stopped: list[Process] = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text())
            owner = Process(*map(int, data["owner"]))
            if data["host"] != host:
                continue  # a shared home folder: another machine's processes are not ours
        except (OSError, ValueError, KeyError, TypeError):
            path.unlink(missing_ok=True)  # a torn record (the owner died while writing it)
            continue
        if owner.alive():
            continue
        stopped += _stop_all(path)
        path.unlink(missing_ok=True)
    return stopped


SWEEPS = 5  # looks at a dead owner's processes, at most, until none is left


def _stop_all(path: Path) -> list[Process]:
    """Stop a record's processes, looking again until none is left: one of them may start
    another while it is being stopped (a raylet its dashboard agent)."""
    stopped: list[Process] = []
    for _ in range(SWEEPS):
        found = stop(_ours(path))
        if not found:
            break
        stopped += found
    return stopped
