"""`villagelab ui`: serves the newest study's runs view (looked at in headless Chromium
against the installed MLflow 3), refuses a port already taken, stops its MLflow child when
it ends, is terminated or interrupted."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from .chromium import dom, needs_chromium
from .conftest import villagelab

pytestmark = pytest.mark.slow
EXE = str(Path(sys.executable).with_name("villagelab"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two studies; 'newer' is the newest."""
    root = tmp_path_factory.mktemp("ui")
    config = root / "search.yaml"
    config.write_text("scenarios: [public_fact]\nseeds: 0-1\n")
    for name in ("older", "newer"):
        result = villagelab(
            "search",
            "--study",
            name,
            "--trials",
            "2",
            "--config",
            str(config),
            "--runs-dir",
            str(root / "runs"),
            "--serial",
        )
        assert result.returncode == 0, result.stderr
    return root / "runs"


def start(runs: Path, port: int) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """Start the command; wait for the lines it prints once the UI answers."""
    ui = subprocess.Popen(
        [EXE, "ui", "--runs-dir", str(runs), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "300"},
    )
    said: dict[str, str] = {}
    assert ui.stdout is not None
    for line in ui.stdout:
        key, _, value = line.strip().partition(": ")
        said[key] = value
        if key == "runs_view":
            return ui, said
    raise AssertionError(f"no runs_view line; stderr: {ui.stderr.read() if ui.stderr else ''}")


def children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(x) for x in text.split()]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie waiting for its parent's wait() is gone too
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except FileNotFoundError:
        return True


def answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
            return True
    except OSError:
        return False


@needs_chromium
def test_ui_serves_the_runs_view_of_the_newest_study(runs):
    from mlflow.tracking import MlflowClient

    port = free_port()
    ui, said = start(runs, port)
    try:
        newer = MlflowClient(tracking_uri=f"sqlite:///{runs / 'mlflow.db'}").get_experiment_by_name(
            "newer"
        )
        assert said["study"] == "newer"
        assert said["runs_view"] == (
            f"http://127.0.0.1:{port}/#/experiments/"
            f"{newer.experiment_id}/runs?workflowType="
            "machine_learning&viewStateShareKey=villagelab"
        )
        page = dom(said["runs_view"])
        assert "trial 0" in page and "trial 1" in page  # the runs table, not GenAI traces
        assert "villagelab.decision" in page and "optuna_value" in page  # the view's columns
        assert "shared view" in page
    finally:
        ui.send_signal(signal.SIGTERM)
        ui.wait(timeout=60)
    assert ui.returncode == 0


def test_ui_stops_its_mlflow_server_on_sigterm_and_on_ctrl_c(runs):
    for stop in (signal.SIGTERM, signal.SIGINT):
        port = free_port()
        ui, _ = start(runs, port)
        (server,) = children(ui.pid)
        assert answers(port)
        ui.send_signal(stop)
        ui.wait(timeout=60)
        assert ui.returncode == 0
        deadline = time.monotonic() + 30
        while not gone(server) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert gone(server) and not answers(port)


def test_ui_refuses_a_port_already_taken(runs):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = villagelab("ui", "--runs-dir", str(runs), "--port", str(port))
    assert result.returncode == 2
    assert f"port {port} on 127.0.0.1 is taken" in result.stderr
    assert "runs_view" not in result.stdout and "Traceback" not in result.stderr


@needs_chromium
def test_the_docs_script_photographs_the_runs_view_a_trial_and_a_model_version(runs, tmp_path):
    from .chromium import drawn
    from .conftest import ROOT

    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "docs" / "screenshots.py"),
            "--runs-dir",
            str(runs),
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    for name in ("runs-view", "trial", "model-version"):
        assert drawn(tmp_path / f"{name}.png"), name


@needs_chromium
def test_the_site_build_takes_the_screenshots_afresh_into_the_site_only(runs, tmp_path):
    """Where Chromium is present, `mkdocs build` photographs a study into the site it builds
    (docs/hooks/gen_screenshots.py); the checked-in pictures under docs/ stay as they are."""
    from .chromium import drawn
    from .conftest import ROOT

    checked_in = {p.name: p.read_bytes() for p in (ROOT / "docs" / "screenshots").glob("*.png")}
    site = tmp_path / "site"
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "DISABLE_MKDOCS_2_WARNING": "true",
        "VILLAGELAB_SCREENSHOTS": "auto",
        "VILLAGELAB_SCREENSHOTS_RUNS": str(runs),
    }
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert f"screenshots: {len(checked_in)} taken afresh with Chromium" in result.stderr
    for name, before in checked_in.items():
        fresh = (site / "screenshots" / name).read_bytes()
        assert fresh != before and drawn(site / "screenshots" / name), name
        assert (ROOT / "docs" / "screenshots" / name).read_bytes() == before, name
