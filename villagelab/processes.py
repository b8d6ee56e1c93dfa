"""Processes villagelab starts and must stop: the local Ray cluster's (GCS, raylet, dashboard,
its agents, workers) and the MLflow UI's server.

Whoever starts them records them in a file of its own — its pid and start time, the host, and
each process's pid and start time — in a private folder (`VILLAGELAB_PROCESS_RECORDS`, default
~/.local/state/villagelab/processes). On an orderly end (exit, Ctrl-C, SIGTERM) the starter
stops them and removes the record. After a kill -9 the record stays, and the next start sweeps
it: the recorded processes still alive, and their descendants, are stopped. A process is
ours only if its pid *and* its start time match the record, so a reused pid is never hit;
nothing is ever found by name (`ray stop` would end every user's clusters).
Linux only (/proc); elsewhere nothing is recorded or swept.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .files import atomic_write_json

PROC = Path("/proc")


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


def records_dir() -> Path:
    base = os.environ.get("VILLAGELAB_PROCESS_RECORDS")
    if base:
        return Path(base)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "villagelab" / "processes"


def _record_path(kind: str, owner: Process) -> Path:
    return records_dir() / f"{kind}-{socket.gethostname()}-{owner.pid}-{owner.start}.json"


def remember(kind: str, processes: Iterable[Process]) -> Path | None:
    """Record (or extend) what this process started of `kind`; None where /proc is missing."""
    me = process(os.getpid())
    if me is None:
        return None
    path = _record_path(kind, me)
    known = set(recorded(path))
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write_json(
        path,
        {
            "kind": kind,
            "host": socket.gethostname(),
            "owner": [me.pid, me.start],
            "processes": [[p.pid, p.start] for p in sorted(known | set(processes))],
        },
    )
    return path


def recorded(path: Path) -> list[Process]:
    try:
        data = json.loads(path.read_text())
        return [Process(int(pid), int(start)) for pid, start in data["processes"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


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
    listed = [p for p in recorded(path) if p.alive()]
    stopped = stop([*listed, *descendants(p.pid for p in listed)])
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
        listed = [p for p in recorded(path) if p.alive()]
        stopped += stop([*listed, *descendants(p.pid for p in listed)])
        path.unlink(missing_ok=True)
    return stopped
