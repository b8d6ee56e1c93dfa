"""Reading a run folder's manifest for `score`: only what the folder describes is read.

A manifest is a file anyone could have edited. It may point at the traces beside it, or name
the URI the run wrote them to — and then only that same URI, given again on the command line,
is read (a manifest alone never sends villagelab to another location). The episodes it lists
name files under that root, so their scenario names must be plain names.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policies import InputError
from villagelab.safe_text import redact

_SCENARIO = re.compile(r"[a-z][a-z0-9_]{0,63}")


@dataclass(frozen=True)
class RunManifest:
    hashes: dict[str, str]
    metrics: dict[str, list[str]] | None  # each scenario's declared metrics, as run
    episodes: list[tuple[str, int]]  # the (scenario, seed) episodes that ended ok
    traces: str | Path  # the folder or URI the traces are read from


def read_manifest(directory: Path, traces_uri: str | None) -> RunManifest:
    path = directory / "manifest.json"
    if not path.exists():
        raise InputError(
            f"{directory}: no manifest.json; expected a folder written by "
            "'villagelab run --out DIR'"
        )
    try:
        meta: Any = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(
            f"{path}: unreadable ({exc}); expected the manifest 'villagelab run' writes"
        ) from None
    if not isinstance(meta, dict):
        raise InputError(
            f"{path}: not a JSON object; expected the manifest 'villagelab run' writes"
        )
    if not meta.get("complete", True):
        raise InputError(
            f"{path}: the run that writes this folder has not finished (or "
            "was interrupted); run the same 'villagelab run' command again to "
            "resume it"
        )
    try:
        hashes = {k: str(meta[k]) for k in ("harness", "instrument", "policy")}
        episodes = [
            (str(e["scenario"]), int(e["seed"])) for e in meta["episodes"] if e["status"] == "ok"
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(
            f"{path}: not a complete manifest ({type(exc).__name__}: {exc}); "
            "expected the one 'villagelab run' writes"
        ) from None
    for scenario, _ in episodes:
        if not _SCENARIO.fullmatch(scenario):
            raise InputError(
                f"{path}: episodes: scenario {scenario!r} is not a scenario "
                "name (lowercase letters, digits and '_')"
            )
    return RunManifest(
        hashes,
        meta.get("metrics"),
        episodes,
        _trace_root(path, directory, meta.get("traces", "traces"), traces_uri),
    )


def _trace_root(path: Path, directory: Path, named: Any, traces_uri: str | None) -> str | Path:
    if named == "traces":
        if traces_uri is not None:
            raise InputError(
                f"{path}: the traces are beside the manifest; --traces-uri "
                "is only for a run that wrote them to a URI"
            )
        return directory
    if traces_uri is None:
        raise InputError(
            f"{path}: the traces are at {named}; give that URI again with "
            "--traces-uri (a manifest alone never points villagelab elsewhere)"
        )
    if redact(traces_uri) != named:
        raise InputError(
            f"{path}: the traces are at {named}, not at {redact(traces_uri)}; "
            "give the URI the run wrote them to"
        )
    return traces_uri
