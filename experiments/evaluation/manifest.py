"""Reading a run folder's manifest for `score` and `inspect`: only what the folder describes
is read, and only if it is what the run wrote.

A manifest is a file anyone could have edited. Its `sha256` seal must match (an edited status
or a deleted entry is refused), it must list every (scenario, seed) the run was given once,
and each episode with traces carries its files' SHA-256, checked when they are read. It may
point at the traces beside it, or name the URI the run wrote them to — and then only that
same URI, given again on the command line, is read (a manifest alone never sends villagelab
to another location). The episodes it lists name files under that root, so their scenario
names must be plain names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.engine.contract import EpisodeStatus
from harness.engine.declared import NAME
from harness.engine.integrity import keyed_problem, seal
from harness.engine.schema import TABLE_NAMES
from policies import InputError
from villagelab import bounded_json
from villagelab.safe_text import redact
from villagelab.yamlsource import read_regular

_SCENARIO = re.compile(r"[a-z][a-z0-9_]{0,63}")


MANIFEST_BYTES = 64 << 20  # a manifest of 100,000 episodes is ~30 MB
REPAIR = "run the same 'villagelab run' command with --repair to re-run what is damaged"


@dataclass(frozen=True)
class RunManifest:
    hashes: dict[str, str]
    metrics: dict[str, list[str]] | None  # each scenario's declared metrics, as run
    # the (scenario, seed) episodes that ended ok, in the run's order, each with its files'
    # SHA-256 (table name → digest)
    episodes: dict[tuple[str, int], dict[str, str]]
    traces: str | Path  # the folder or URI the traces are read from
    # each ok episode's trace files' sizes (checked before a file is read), as recorded
    sizes: dict[tuple[str, int], dict[str, int]]


def sealed_manifest(path: Path) -> dict[str, Any]:
    """The manifest at `path` as the run wrote it: a regular file of bounded size in its folder,
    plain JSON of bounded depth and numbers, whose checksum and keyed seal both match."""
    data = read_regular(path, MANIFEST_BYTES, inside=path.parent)
    try:
        meta: Any = bounded_json.loads(data.decode("utf-8"))
    except ValueError as exc:
        raise InputError(
            f"{path}: unreadable ({exc}); expected the manifest 'villagelab run' writes; {REPAIR}"
        ) from None
    if not isinstance(meta, dict):
        raise InputError(
            f"{path}: not a JSON object; expected the manifest 'villagelab run' writes"
        )
    if "sha256" not in meta:
        raise InputError(
            f"{path}: written before villagelab recorded checksums (no sha256); {REPAIR} "
            "(unchanged episodes are rewritten byte for byte)"
        )
    if meta["sha256"] != seal(meta):
        raise InputError(
            f"{path}: edited or damaged since the run wrote it (its sha256 seal does not "
            f"match its content); {REPAIR}"
        )
    problem = keyed_problem(meta)
    if problem is not None:
        raise InputError(f"{path}: {problem}; {REPAIR}")
    return meta


def read_manifest(directory: Path, traces_uri: str | None) -> RunManifest:
    path = directory / "manifest.json"
    if not path.exists():
        raise InputError(
            f"{directory}: no manifest.json; expected a folder written by "
            "'villagelab run --out DIR'"
        )
    meta = sealed_manifest(path)
    if not meta.get("complete", True):
        raise InputError(
            f"{path}: the run that writes this folder has not finished (or "
            "was interrupted); run the same 'villagelab run' command again to "
            "resume it"
        )
    try:
        hashes = {k: str(meta[k]) for k in ("harness", "instrument", "policy")}
        episodes = _episodes(path, meta)
        sizes = _sizes(path, meta)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(
            f"{path}: not a complete manifest ({type(exc).__name__}: {exc}); "
            "expected the one 'villagelab run' writes"
        ) from None
    for scenario in sorted({str(e["scenario"]) for e in meta["episodes"]}):
        if not _SCENARIO.fullmatch(scenario):
            raise InputError(
                f"{path}: episodes: scenario {scenario!r} is not a scenario "
                "name (lowercase letters, digits and '_')"
            )
    if not episodes:
        raise InputError(f"{path}: no episode of this run ended ok, so there is nothing to score")
    return RunManifest(
        hashes,
        meta.get("metrics"),
        episodes,
        _trace_root(path, directory, meta.get("traces", "traces"), traces_uri),
        sizes,
    )


def _trace_tables(files: dict[str, Any]) -> bool:
    """Whether an episode's entry names each harness table and, beside them, only tables
    an agent may declare (a name that is a plain folder name)."""
    names = set(files)
    return set(TABLE_NAMES) <= names and all(
        isinstance(n, str) and NAME.match(n) for n in names - set(TABLE_NAMES)
    )


def _sizes(path: Path, meta: dict[str, Any]) -> dict[tuple[str, int], dict[str, int]]:
    """The sizes each ok episode's entry records, one for every trace table."""
    out = {}
    for entry in meta["episodes"]:
        recorded = entry.get("bytes")
        if recorded is None:
            continue  # an older manifest: the files' sizes are only bounded
        if (
            not isinstance(recorded, dict)
            or not _trace_tables(recorded)
            or not all(type(v) is int and v >= 0 for v in recorded.values())
        ):
            raise InputError(
                f"{path}: episode {entry['scenario']}/{entry['seed']}: bytes: expected each "
                f"trace file's size in bytes; {REPAIR}"
            )
        out[(str(entry["scenario"]), int(entry["seed"]))] = dict(recorded)
    return out


def _episodes(path: Path, meta: dict[str, Any]) -> dict[tuple[str, int], dict[str, str]]:
    """The ok episodes with their digests; every episode the run was given listed once, and
    each ok one with a digest for every trace table (no more, no fewer)."""
    given = [(str(sc), int(seed)) for sc in meta["scenarios"] for seed in meta["seeds"]]
    listed = [(str(e["scenario"]), int(e["seed"])) for e in meta["episodes"]]
    if sorted(listed) != sorted(given):
        raise InputError(
            f"{path}: episodes: expected each of the {len(given)} (scenario, seed) episodes "
            f"the run was given once, found {len(listed)} entries; {REPAIR}"
        )
    episodes = {}
    for entry in meta["episodes"]:
        key = (str(entry["scenario"]), int(entry["seed"]))
        status = EpisodeStatus(entry["status"])
        digests = entry.get("sha256")
        if status == EpisodeStatus.OK:
            if not isinstance(digests, dict) or not _trace_tables(digests):
                raise InputError(
                    f"{path}: episode {key[0]}/{key[1]} is ok but its trace files' "
                    f"sha256 are not all recorded; {REPAIR}"
                )
            episodes[key] = {str(k): str(v) for k, v in digests.items()}
        elif digests is not None:
            raise InputError(
                f"{path}: episode {key[0]}/{key[1]} is {status} yet lists trace files; {REPAIR}"
            )
    return episodes


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
