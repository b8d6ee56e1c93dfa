"""mkdocs-gen-files script (mkdocs.yml): the screenshots, taken afresh as the site builds.

Where Chromium is on PATH, docs/screenshots.py runs a small search, serves it with MLflow and
photographs it (under a minute on two cores); the pictures replace the checked-in ones in the
build only, never docs/screenshots/. Without Chromium, or with VILLAGELAB_SCREENSHOTS=off
(the tests' builds), the checked-in pictures are used as they are. VILLAGELAB_SCREENSHOTS_RUNS
names a runs folder to photograph instead of the small search. A failure to take them where
Chromium is present fails the build: a stale picture is not silently published.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import time
from pathlib import Path

import mkdocs_gen_files

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent)]  # the checkout's packages, screenshots.py

import screenshots  # found through the path just set

log = logging.getLogger("mkdocs.plugins.villagelab.screenshots")
CHECKED_IN = sorted(p.name for p in (HERE.parent / "screenshots").glob("*.png"))


def wanted() -> str | None:
    """Why the checked-in pictures are used, or None to take them afresh."""
    if os.environ.get("VILLAGELAB_SCREENSHOTS", "auto").lower() == "off":
        return "VILLAGELAB_SCREENSHOTS=off"
    if screenshots.find_chromium() is None:
        return "Chromium is not on PATH"
    return None


reason = wanted()
if reason is not None:
    log.info("screenshots: the checked-in ones (%s)", reason)
else:
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        runs = os.environ.get("VILLAGELAB_SCREENSHOTS_RUNS")
        taken = screenshots.take(Path(tmp), Path(runs) if runs else None)
        for path in taken:
            with mkdocs_gen_files.open(f"screenshots/{path.name}", "wb") as picture:
                picture.write(path.read_bytes())
    missing = sorted(set(CHECKED_IN) - {p.name for p in taken})
    if missing:  # a page shows each checked-in picture: one not retaken would be stale
        raise SystemExit(f"screenshots: not retaken: {', '.join(missing)}")
    log.info(
        "screenshots: %d taken afresh with Chromium in %.0f s",
        len(taken),
        time.monotonic() - started,
    )
