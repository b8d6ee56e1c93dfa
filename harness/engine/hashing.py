"""The two hashes every run records (design §1).

harness — the code of the five packages (and their shared leaves, villagelab/) and the
whitelist: what is measured.
instrument — the scenario files, the scorecard definition and the seed sets: what measures.
Baselines, champion exports, runs and traces are never hashed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from scenarios import LIBRARY
from scenarios.suite import SUITES

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("harness", "policies", "scenarios", "scorecards", "experiments", "villagelab")


def _digest(files: Iterable[Path], extra: Iterable[bytes] = ()) -> str:
    h = hashlib.blake2b(digest_size=12)
    for path in sorted(set(files), key=lambda p: p.as_posix()):
        rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
        h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    for blob in sorted(extra):
        h.update(blob + b"\0")
    return h.hexdigest()


def harness_hash() -> str:
    return _digest(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def instrument_files(scenario_files: Iterable[Path] = ()) -> list[Path]:
    library = sorted(LIBRARY.glob("*.yaml"))
    fixed = [*_suite_files(), ROOT / "scorecards" / "default.yaml"]
    return [*library, *fixed, *(Path(p).resolve() for p in scenario_files)]


def _suite_files() -> list[Path]:
    """Every named suite's file (main, companion, research, workflow): its seed sets and
    scenario list are part of what measures, whichever suite a run selects."""
    return sorted(set(SUITES.values()))


def instrument_parts(scenario_files: Iterable[Path] = ()) -> dict[str, str]:
    """The instrument's parts, hashed apart, so a mismatch can say what differs."""
    library = sorted(LIBRARY.glob("*.yaml"))
    return {
        "scenarios": _digest([*library, *(Path(p).resolve() for p in scenario_files)]),
        "scorecard definition": _digest([ROOT / "scorecards" / "default.yaml"]),
        "suite and seed sets": _digest(_suite_files()),
    }


def instrument_hash(scenario_files: Iterable[Path] = (), generated: Iterable[bytes] = ()) -> str:
    """`generated`: canonical JSON of scenarios made by a generator (their files are code)."""
    return _digest((p for p in instrument_files(scenario_files) if p.exists()), generated)


def state_hash(agent: Any) -> str:
    """A digest of any agent's whole state (`get_state`): what a probe must leave unchanged."""
    text = json.dumps(agent.get_state(), sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
