"""Real servers on loopback, started by the tests: PostgreSQL, an MLflow tracking server, a Ray
head node. Shared by the modules that need them (import the fixtures by name)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

PG_BIN = max(
    Path("/usr/lib/postgresql").glob("*/bin"),
    default=Path("/nonexistent"),
    key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
)
EXE = str(Path(sys.executable).with_name("villagelab"))
QUIET = {
    **os.environ,
    "MLFLOW_DISABLE_TELEMETRY": "true",
    "RAY_AUTH_MODE": "disabled",
    "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(check, seconds: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.25)
    raise RuntimeError(f"{what} did not come up within {seconds} s")


@pytest.fixture(scope="module")
def postgres(tmp_path_factory):
    """A private PostgreSQL server on loopback, run as the postgres user (CI runs as root)."""
    if not (PG_BIN / "initdb").exists():
        message = "the PostgreSQL server is not installed (apt-get install postgresql)"
        if os.environ.get("CI"):
            pytest.fail(message + "; .ci/run installs it")
        pytest.skip(message)
    home = Path(tempfile.mkdtemp(prefix="villagelab-pg-"))  # pytest's own temp is root-only
    if os.geteuid() == 0:
        shutil.chown(home, "postgres")
    data = home / "data"
    port = free_port()
    as_pg = ["su", "postgres", "-c"] if os.geteuid() == 0 else ["sh", "-c"]
    subprocess.run(
        [*as_pg, f"{PG_BIN / 'initdb'} -D {data} -A trust -U villagelab"],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [
            *as_pg,
            (
                f"{PG_BIN / 'pg_ctl'} -D {data} -l {data}/log -w -o "
                f"'-p {port} -k /tmp -c listen_addresses=127.0.0.1' start"
            ),
        ],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [
            str(PG_BIN / "createdb"),
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-U",
            "villagelab",
            "optuna",
        ],
        check=True,
        capture_output=True,
    )
    yield f"postgresql://villagelab@127.0.0.1:{port}/optuna"
    subprocess.run(
        [*as_pg, f"{PG_BIN / 'pg_ctl'} -D {data} -m fast stop"], check=False, capture_output=True
    )
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="module")
def mlflow_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("mlflow")
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mlflow",
            "server",
            "--backend-store-uri",
            f"sqlite:///{root / 'mlflow.db'}",
            "--default-artifact-root",
            (root / "artifacts").as_uri(),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
        ],
        env=QUIET,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def up() -> bool:
        import urllib.request

        try:
            return urllib.request.urlopen(f"http://127.0.0.1:{port}/health").status == 200
        except OSError:
            return False

    try:
        wait_until(up, 90, "mlflow server")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory):
    """A Ray head node of its own ('ray start --head --block' in a new process group), stopped
    by signalling that group: 'ray stop' would end every Ray cluster on the machine."""
    import signal

    ray = str(Path(sys.executable).with_name("ray"))
    port = free_port()
    temp = Path(tempfile.mkdtemp(prefix="villagelab-ray-"))
    head = subprocess.Popen(
        [
            ray,
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            f"--temp-dir={temp}",
            "--node-ip-address=127.0.0.1",
        ],
        env=QUIET,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )

    def up() -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    try:
        wait_until(up, 90, "ray head node")
        time.sleep(2)  # the raylet registers just after the GCS port opens
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)
