"""Exits are clean (issue 29): on a loaded machine `villagelab inspect` on a damaged episode
printed its refusal and then died at interpreter teardown ("terminate called without an
active exception", SIGABRT) instead of exit 2. The console script now stops what it started
and ends the process with the command's code itself (`experiments.cli.exits.entry`): here the
failing command runs again and again beside a CPU hog (and a successful one after it), and
never ends by a signal."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, villagelab

REPEATS, MANY = 4, 40  # the default run; --robustness-full
HOG = "while True:\n    pass\n"


def flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))


@pytest.mark.slow
def test_inspect_exits_with_its_code_every_time_beside_a_cpu_hog(tmp_path, robustness_full):
    out = tmp_path / "run"
    made = villagelab(
        "run",
        "--scenario",
        "public_fact",
        "--policy",
        str(ROOT / "policies" / "careful.yaml"),
        "--seeds",
        "0-1",
        "--serial",
        "--out",
        str(out),
    )
    assert made.returncode in (0, 1), made.stderr
    damaged = tmp_path / "damaged"
    shutil.copytree(out, damaged)
    flip(damaged / "traces" / "state" / "public_fact" / "1.parquet")
    agent = ["--scenario", "public_fact", "--agent", "ana"]
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(os.cpu_count() or 2)]
    repeats = MANY if robustness_full else REPEATS
    try:
        codes = []
        for _ in range(repeats):
            refused = villagelab("inspect", str(damaged), *agent, "--seed", "1")
            assert "public_fact/1" in refused.stderr and "Traceback" not in refused.stderr
            codes.append(refused.returncode)
        shown = villagelab("inspect", str(out), *agent, "--seed", "0")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert (codes, shown.returncode) == ([2] * repeats, 0)


def test_the_console_script_ends_with_the_commands_code_after_its_exit_hooks(tmp_path):
    """`entry` runs the exit hooks (what stops a Ray cluster) before it ends the process."""
    code = (
        "import atexit, sys\n"
        "from experiments.cli import exits\n"
        f"atexit.register(lambda: open({str(tmp_path / 'hook')!r}, 'w').write('ran'))\n"
        "sys.argv = ['villagelab', 'policy', 'validate', '/nonexistent.yaml']\n"
        "exits.entry()\n"
        "print('not reached')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 2, result.stderr
    assert "/nonexistent.yaml" in result.stderr and "not reached" not in result.stdout
    assert (tmp_path / "hook").read_text() == "ran"
