"""The agents' side of the process boundary (boundary.py): the zygote that forks each
agent's process, and the loop by which an agent's process answers the episode's calls. This
module runs in those processes only; the episode's process imports it for the wire's words."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import pickle
import signal
import socket
import sys
import traceback
from multiprocessing.connection import Connection
from typing import Any

from . import plugins
from .contract import EpisodeStop

OK, STOP, CRASH = "ok", "stop", "crash"  # how a call went, as a reply says
MAKE, BESIDE = "make", "beside"  # what an agent-side process is told first


# --- an agent's process -----------------------------------------------------------------------


def _detail(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


def _send(conn: Connection, status: str, payload: Any, rows: list[Any]) -> None:
    try:
        data = pickle.dumps((status, payload, rows), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - an answer that cannot travel is the agent's crash
        data = pickle.dumps((CRASH, f"its reply could not be sent: {_detail(exc)}", []))
    conn.send_bytes(data)


def _serve(conn: Connection, reference: str) -> None:
    """One agent-side process: told what to do - make the agent from its setup and answer
    calls until the episode hangs up, or run one function of ours beside the agent's code
    (`beside`) and send back what it returns."""
    # the row registry reads the trace schema (pyarrow): loaded by the zygote, not by the
    # episode's process for the wire's words
    from .declared import declarations_of
    from .diagnostics import wire

    try:
        kind, payload = pickle.loads(conn.recv_bytes())
        if kind == BESIDE:
            function, args = payload
            _send(conn, OK, plugins.load(function)(reference, *args), [])
            return
        factory = plugins.load(reference)
        agent = factory(payload)
        # the tables it declares, as plain data: the episode's side records them unimported
        declared = [d.to_plain() for d in declarations_of(factory)]
        rows = wire(list(agent.drain_diagnostics() or ()))
    except BaseException as exc:  # noqa: BLE001 - the factory's failure is the agent's crash
        _send(conn, CRASH, _detail(exc), [])
        return
    _send(conn, OK, declared, rows)
    while True:
        try:
            method, args = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return  # the episode is over
        rows = []
        try:
            status, payload = OK, getattr(agent, method)(*args)
            rows = wire(list(agent.drain_diagnostics() or ()))
        except EpisodeStop as stop:
            with contextlib.suppress(Exception):
                rows = wire(list(agent.drain_diagnostics() or ()))  # what it spent still counts
            status, payload = STOP, (str(stop.status), str(stop))
        except BaseException as exc:  # noqa: BLE001 - a crash is a result, sent back
            status, payload = CRASH, _detail(exc)
        _send(conn, status, payload, rows)


# --- the zygote: forks an agent's process for each request ---------------------------------


def zygote() -> None:
    """The zygote's loop: for each request an agent process, forked with only its socket."""
    die_with_parent()
    import_what_a_setup_carries()
    control = socket.socket(fileno=os.dup(0))
    os.close(0)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # its children are reaped by the kernel
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 1 << 18, 1)
        except OSError:
            return
        if not message or not fds:
            return  # the episode's process hung up
        reference, sys.path[:] = json.loads(message)
        # imported once here, for every fork to share; a failure shows when one is made
        with contextlib.suppress(Exception, SystemExit):
            plugins.load(plugins.split(reference)[0])
        pid = os.fork()
        if pid == 0:
            control.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            die_with_parent()
            conn = Connection(fds[0])
            try:
                _serve(conn, reference)
            finally:
                os._exit(0)
        os.close(fds[0])
        control.send(str(pid).encode())


def import_what_a_setup_carries() -> None:
    """Import, once here for every fork to share, the modules an agent's setup is unpickled
    with: each agent's process imported `policies` itself (a Policy travels in the setup), and
    building its validating models was most of an isolated agent's start, per agent and
    episode. The contract's other records (scenarios, draws) come with this module, and the
    diagnostic row registry (with pyarrow) that every agent's rows go through."""
    import policies  # noqa: F401

    from . import diagnostics  # noqa: F401 - the row registry, which every agent's rows cross


def die_with_parent() -> None:
    """Linux: end this process when its parent ends (a stuck agent outlives nothing)."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
