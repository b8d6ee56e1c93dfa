"""Headless Chromium for the tests that look at pages, where it is installed (`.ci/run`
installs Debian's chromium); the tests that need it are skipped cleanly elsewhere.

The plain command line is enough: `--screenshot` draws a page, `--dump-dom` gives the DOM
after the page's scripts ran, and `--enable-logging=stderr` prints every console message as
an `INFO:CONSOLE` line. The flags keep Chromium off the network (a closed machine refuses
its background connections) and give it a fresh profile each time.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

CHROMIUM = next(
    (
        found
        for found in (
            shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
        )
        if found
    ),
    None,
)

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium is not installed (.ci/run installs Debian's chromium)",
)

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium(url: str, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args, url],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def screenshot(
    url: str, path: Path, size: tuple[int, int] = (1400, 1000), wait_ms: int = 0
) -> list[str]:
    """Draw the page into `path`; return the console messages the page printed."""
    args = [
        "--enable-logging=stderr",
        "--v=0",
        f"--window-size={size[0]},{size[1]}",
        f"--screenshot={path}",
    ]
    if wait_ms:
        args.append(f"--virtual-time-budget={wait_ms}")
    result = chromium(url, *args)
    assert path.exists(), result.stderr[-2000:]
    return [line for line in result.stderr.splitlines() if ":CONSOLE" in line]


def dom(url: str, wait_ms: int = 20000) -> str:
    """The page's DOM after its scripts ran (for `wait_ms` of virtual time)."""
    return chromium(url, f"--virtual-time-budget={wait_ms}", "--dump-dom").stdout


def drawn(path: Path) -> bool:
    """Whether a screenshot shows something: a real PNG, not one flat colour."""
    from matplotlib.image import imread

    pixels = imread(str(path))
    return pixels.ndim == 3 and pixels.shape[0] > 100 and float(pixels.std()) > 0.01
