"""`villagelab ui`: the MLflow UI on the runs folder, opened on the newest study's trials.

MLflow 3 opens an experiment on its GenAI traces overview; the runs table needs the route
`#/experiments/<id>/runs?workflowType=machine_learning`, and the study's shared view
(`study_view.shared_view`) picks the trials and the columns that explain each decision. The
server is a child process in its own process group: it is stopped when this command exits,
is terminated (SIGTERM, SIGHUP) or interrupted (Ctrl-C), and a port already taken is an
error before anything starts.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from typing import Any

from experiments.tracking.records import mlflow_client
from experiments.tracking.study_view import runs_view_path
from policies import InputError
from villagelab import processes


def newest_study(uri: str) -> tuple[str, str] | None:
    """(experiment id, name) of the most recently created study in the store."""

    client = mlflow_client(uri)
    found = client.search_experiments(
        filter_string="tags.`villagelab.kind` = 'study'",
        order_by=["creation_time DESC"],
        max_results=1,
    )
    if not found:  # a store written before studies were tagged: any experiment but Default
        found = [
            e
            for e in client.search_experiments(order_by=["creation_time DESC"])
            if e.name != "Default"
        ][:1]
    return (found[0].experiment_id, found[0].name) if found else None


def port_taken(host: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


# Linux: the server gets SIGTERM should this process die without cleaning up (kill -9):
# a launcher sets PR_SET_PDEATHSIG, which survives the exec into the MLflow server.
LAUNCHER = """import ctypes, os, signal, sys
try:
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
except (OSError, AttributeError):
    pass
os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
"""


class Server:
    """An MLflow server child process, stopped with its whole process group."""

    def __init__(self, uri: str, host: str, port: int) -> None:
        self.uri, self.host, self.port = uri, host, port
        self.process: subprocess.Popen[bytes] | None = None
        # the server's chatter, read only if it fails; open for the server's whole life
        self.log = tempfile.TemporaryFile()  # noqa: SIM115

    def start(self, ready_within: float = 120.0) -> None:
        # recorded before it starts, with a mark its processes inherit: a kill of this
        # process before the server answers (seconds) leaves nothing the next start misses
        with processes.starting("mlflow-ui"):
            env = {
                **os.environ,
                "MLFLOW_DISABLE_TELEMETRY": "true",
                "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false",
            }
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    LAUNCHER,
                    "-m",
                    "mlflow",
                    "server",
                    "--backend-store-uri",
                    self.uri,
                    "--host",
                    self.host,
                    "--port",
                    str(self.port),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=self.log,
                start_new_session=True,
            )
        deadline = time.monotonic() + ready_within
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.log.seek(0)
                said = self.log.read().decode(errors="replace").strip().splitlines()[-5:]
                raise InputError(
                    f"the MLflow server stopped at once (exit "
                    f"{self.process.returncode}): " + " / ".join(said)
                )
            if self.healthy():  # recorded with its workers: a kill -9 of both is swept
                server = processes.process(self.process.pid)
                tree = processes.descendants([self.process.pid])
                processes.remember("mlflow-ui", [server, *tree] if server else tree)
                return
            time.sleep(0.3)
        self.stop()
        raise InputError(
            f"the MLflow server did not answer on {self.base} within {ready_within:.0f} s"
        )

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base}/health", timeout=2) as reply:
                return bool(reply.status == 200)
        except OSError:
            return False

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is not None:
            processes.stop_recorded("mlflow-ui")  # its workers, should they outlive it
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=15)
        except ProcessLookupError:
            pass
        processes.stop_recorded("mlflow-ui")


def serve(uri: str, host: str, port: int, say: Callable[[str], None]) -> int:
    """Serve the UI until the server ends or this process is told to stop; the exit code."""
    if port_taken(host, port):
        raise InputError(
            f"port {port} on {host} is taken (another MLflow UI or server?); "
            "give a free one with --port"
        )
    study = newest_study(uri)
    server = Server(uri, host, port)
    stopping: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        stopping.append(signum)
        server.stop()

    handlers = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    try:
        server.start()
        if study is None:
            say(f"MLflow UI: {server.base}/ (no study yet: run 'villagelab search')")
        else:
            say(
                f"study: {study[1]}\nruns_view: {server.base}/{runs_view_path(study[0])}\n"
                f"MLflow UI on {server.base} (Ctrl-C stops it)"
            )
        while server.process is not None and server.process.poll() is None:
            time.sleep(0.5)
        if stopping:
            return 0
        code = server.process.returncode if server.process is not None else 0
        return 0 if code == 0 else 2
    finally:
        server.stop()
        for s, previous in handlers.items():
            signal.signal(s, previous)
