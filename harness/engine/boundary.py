"""Agents behind a process boundary: each agent of an episode lives in a process of its own,
and the episode reaches it only by messages that carry contract records.

Nothing of the episode is reachable from agent code there - not through the call stack, the
garbage collector, module globals or the records it is handed: the process is forked from a
server started clean (it has imported this module, never an episode), it is given only its
own `AgentSetup`, and every call hands it copies of contract records. What comes back is read
by an unpickler that makes only contract records, diagnostic rows and plain data, so an agent
cannot make the episode's process run its code either. (What the operating system lets any
process of the same user do - read files, other processes' memory under ptrace - is outside
this boundary: docs/security.md.)

Calls keep the in-process semantics exactly - one call, one reply, in the engine's order, the
agent's diagnostic rows coming back with each reply and waiting here for `drain_diagnostics`
- so an isolated agent writes byte for byte the traces it writes in the episode's process (a
test holds the built-in agents to it).

Which agents are isolated: `isolated`. Code shipped in this distribution runs in the episode's
process by default (it is ours and tested not to peek; a call across costs tens of
microseconds); every other agent runs behind the boundary.
"""

from __future__ import annotations

import atexit
import io
import json
import os
import pickle
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import is_dataclass
from enum import Enum
from functools import cache
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from scenarios import Sense

from . import agent_side, contract, kinds, plugins
from .agent_side import BESIDE, CRASH, MAKE, OK, STOP
from .contract import AgentSetup, EpisodeStatus, EpisodeStop, Observation

if TYPE_CHECKING:
    from .declared import TableDeclaration

VARIABLE = "VILLAGELAB_ISOLATION"
MODES = ("auto", "process", "none")  # auto: plug-ins behind the boundary, ours in process
TRUSTED = ("harness",)  # the top-level packages whose agents are ours
# what the server that forks agents must not inherit: Ray's token and addresses (with them an
# agent could reach the cluster's object store, where the episode's scenario lies)
SCRUBBED = ("RAY_",)

ENDING_S = 5.0  # how long an ended agent's process may take to go (the kernel's work)


class AgentCrash(Exception):
    """Agent code failed behind the boundary (an exception, or its process ended); `detail`
    is what the agent's own exception said, as a crash in process would say it."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class AgentStopped(EpisodeStop):
    """An agent behind the boundary stopped its episode (EpisodeStop there)."""

    def __init__(self, status: EpisodeStatus, message: str) -> None:
        super().__init__(message)
        self.status = status  # type: ignore[misc]  # this instance's, not the class's default


def mode() -> str:
    """`VILLAGELAB_ISOLATION`: auto (default), process (every agent) or none (no agent)."""
    value = os.environ.get(VARIABLE, "auto")
    if value not in MODES:
        raise ValueError(f"{VARIABLE}={value!r}: expected one of {', '.join(MODES)}")
    return value


def isolated(reference: str) -> bool:
    """Whether the agent an import path names runs behind the boundary."""
    chosen = mode()
    if chosen != "auto":
        return chosen == "process"
    path, _ = plugins.split(reference)
    return path.partition(":")[0].split(".")[0] not in TRUSTED


# --- replies: only contract records, diagnostic rows and plain data --------------------------


@cache
def _record_types() -> dict[tuple[str, str], type]:
    """The classes a reply may hold besides registered diagnostic rows: the contract's records
    and enums."""
    out: dict[tuple[str, str], type] = {}
    for module in (contract, kinds):
        for value in vars(module).values():
            ours = isinstance(value, type) and value.__module__ == module.__name__
            if ours and (is_dataclass(value) or issubclass(value, Enum)):
                out[(value.__module__, value.__qualname__)] = value
    # a Meaning's sense: the scenario's vocabulary, an enum of the scenarios package
    out[(Sense.__module__, Sense.__qualname__)] = Sense
    return out


def _registered(module: str, name: str) -> type | None:
    """A diagnostic row type registered in this process (the engine's and an agent package's of
    ours, imported here): a plug-in's own row types never are, as its code never runs on this
    side - its rows cross as `DeclaredRow`s. The registry is loaded at the first reply that
    holds a row: it reads the trace schema (pyarrow), which the command line does not load to
    check an agent."""
    from . import diagnostics

    for kind in (*diagnostics.row_types(), diagnostics.DeclaredRow):
        if (kind.__module__, kind.__qualname__) == (module, name):
            return kind
    return None


class _RecordUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        kind = _record_types().get((module, name)) or _registered(module, name)
        if kind is None:
            raise pickle.UnpicklingError(
                f"an agent's reply holds a {module}.{name}; expected contract records, "
                "diagnostic rows and plain data"
            )
        return kind


def _reply(data: bytes) -> tuple[str, Any, list[Any]]:
    status, payload, rows = _RecordUnpickler(io.BytesIO(data)).load()
    if status not in (OK, STOP, CRASH) or not isinstance(rows, list):
        raise pickle.UnpicklingError("an agent's reply is not (status, payload, rows)")
    return status, payload, rows


# --- the episode's side: a zygote per process forks each agent's ---------------------------


class Zygote:
    """A process started clean, once per episode-running process, that forks every agent's
    process: it imports the agents' side (agent_side.py) and each agent factory's module (so an
    agent's import-time code runs there, never in the episode's process), and is handed nothing
    else. Each agent's process is a fork of it with only its own socket. It ends when its
    parent does."""

    def __init__(self) -> None:
        here, there = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED)}
        code = (
            f"import sys; sys.path[:] = {sys.path!r}; import {agent_side.__name__} as a; a.zygote()"
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=there.fileno(),  # its control socket: stdin, so no fd number travels
            env=env,
            start_new_session=True,  # a Ctrl-C at the terminal is the episode's to handle
        )
        there.close()
        self.control = here
        self.lock = threading.Lock()

    def fork(self, reference: str) -> tuple[Connection, int]:
        """A new agent process, ready to be told its setup: its connection and pid."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # with this process's import path as it is now (a module put on it since counts)
        request = json.dumps([reference, sys.path]).encode()
        with self.lock:
            socket.send_fds(self.control, [request], [theirs.fileno()])
            theirs.close()
            answer = self.control.recv(64)
        if not answer:
            raise AgentCrash("the process that starts agents has ended")
        return Connection(mine.detach()), int(answer)

    def alive(self) -> bool:
        return self.process.poll() is None


_zygote_lock = threading.Lock()
_ZYGOTE: list[Zygote] = []


def _the_zygote() -> Zygote:
    with _zygote_lock:
        if not _ZYGOTE or not _ZYGOTE[0].alive():
            _ZYGOTE[:] = [Zygote()]
        return _ZYGOTE[0]


class RemoteAgent:
    """An agent as the episode sees it across the boundary: the `Agent` protocol, each call
    a message to the agent's process and its reply; the rows the agent drained with each
    reply wait here for `drain_diagnostics`."""

    def __init__(self, setup: AgentSetup, conn: Connection, pid: int) -> None:
        self.name = setup.name
        self.conn, self.pid = conn, pid
        self.conn.send_bytes(pickle.dumps((MAKE, setup), protocol=pickle.HIGHEST_PROTOCOL))
        self._rows: list[Any] = []
        self._ready = False
        self.declared: Any = None  # its factory's tables, as plain data (`declarations`)

    def ready(self) -> None:
        """Wait for the agent to be made (raises as a call would if its factory failed); its
        factory's declared tables come with the answer."""
        if not self._ready:
            self.declared = self._receive()
            self._ready = True

    def _receive(self) -> Any:
        try:
            data = self.conn.recv_bytes()
        except (EOFError, OSError):
            raise AgentCrash("its process ended before it answered") from None
        status, payload, rows = _reply(data)
        self._rows.extend(rows)
        if status == STOP:
            raise AgentStopped(EpisodeStatus(payload[0]), str(payload[1]))
        if status == CRASH:
            raise AgentCrash(str(payload))
        return payload

    def _call(self, method: str, *args: Any) -> Any:
        self.ready()
        self.conn.send_bytes(pickle.dumps((method, args), protocol=pickle.HIGHEST_PROTOCOL))
        return self._receive()

    def observe(self, obs: Observation) -> None:
        self._call("observe", obs)

    def decide(self, now: int) -> Any:
        return self._call("decide", now)

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> Any:
        return self._call("converse", partner, partner_groups, now)

    def answer(self, proposition: str, now: int) -> Any:
        return self._call("answer", proposition, now)

    def get_state(self) -> Any:
        return self._call("get_state")

    def set_state(self, state: dict[str, Any]) -> None:
        self._call("set_state", state)

    def wake_at(self, now: int) -> Any:
        return self._call("wake_at", now)

    def drain_diagnostics(self) -> list[Any]:
        rows, self._rows = self._rows, []
        return rows

    def close(self) -> None:
        """Hang up; the agent's process is ended with the episode (it holds nothing worth a
        goodbye), and gone when this returns."""
        self.conn.close()
        _end(self.pid)


def start(reference: str, setups: Sequence[AgentSetup]) -> dict[str, RemoteAgent]:
    """The agents of one episode, each in its own process, made from `reference` (a factory's
    import path, with options if any): every process started first, then each awaited."""
    zygote = _the_zygote()
    agents: dict[str, RemoteAgent] = {}
    try:
        for setup in setups:
            agents[setup.name] = RemoteAgent(setup, *zygote.fork(reference))
        for agent in agents.values():
            agent.ready()
    except BaseException:
        close(agents.values())
        raise
    return agents


def declarations(agents: Iterable[RemoteAgent]) -> tuple[TableDeclaration, ...]:
    """The tables the agents' factory declares, as their processes told them once made (all
    made by one factory: the first one's), each checked (AgentCrash when one is not a
    declaration)."""
    from .declared import TableDeclaration  # reads the trace schema: not for the CLI's checks

    for agent in agents:
        try:
            return tuple(TableDeclaration.from_plain(d) for d in agent.declared or ())
        except ValueError as exc:
            raise AgentCrash(f"its factory's row_types: {exc}") from None
    return ()


def _end(pid: int) -> None:
    """Kill a process of the agents' side and wait until it is gone (it is the zygote's child,
    not ours: its pid file descriptor tells when it has ended)."""
    try:
        handle = os.pidfd_open(pid)
    except (ProcessLookupError, OSError):
        return  # already gone
    try:
        signal.pidfd_send_signal(handle, signal.SIGKILL)
        select.select([handle], [], [], ENDING_S)
    except ProcessLookupError:
        pass
    finally:
        os.close(handle)


def stop() -> None:
    """End this process's zygote (the next agent-side process starts a new one)."""
    with _zygote_lock:
        for zygote in _ZYGOTE:
            zygote.control.close()
            zygote.process.kill()
            zygote.process.wait()
        _ZYGOTE.clear()


atexit.register(stop)  # the zygote is stopped on the way out, not left to die with us


def beside(reference: str, function: str, *args: Any) -> Any:
    """What `function` (an import path of ours) returns, called as `function(reference,
    *args)` in an agent-side process: where the agent's code may be imported and run (to be
    checked, hashed, made once) without ever running in this one. The result is plain data."""
    conn, pid = _the_zygote().fork(reference)
    try:
        conn.send_bytes(pickle.dumps((BESIDE, (function, args)), protocol=pickle.HIGHEST_PROTOCOL))
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            raise AgentCrash("its process ended before it answered") from None
        status, payload, _ = _reply(data)
        if status != OK:
            raise AgentCrash(str(payload))
        return payload
    finally:
        conn.close()
        _end(pid)


def close(agents: Any) -> None:
    for agent in agents:
        if isinstance(agent, RemoteAgent):
            agent.close()


def pids(agents: Any) -> tuple[int, ...]:
    """The processes of the agents that have one (for the episode's memory budget)."""
    return tuple(a.pid for a in agents if isinstance(a, RemoteAgent))
