"""What makes a trace file trustworthy: its SHA-256, recorded when it is written, checked
whenever it is read for an answer; and Parquet's own page checksums, verified on every read.

A file that is missing, unreadable or not the one recorded is a `TraceDamaged` error naming
the file and the episode: nothing is scored, inspected or resumed from it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from policies import InputError
from villagelab import seal_keys
from villagelab.yamlsource import read_regular

from .schema import TABLES


class TraceDamaged(InputError):
    """A trace file that cannot be trusted (exit 2): missing, unreadable, or not the bytes
    its manifest recorded."""

    def __init__(self, path: str, scenario: str, seed: int, why: str) -> None:
        self.path, self.scenario, self.seed, self.why = path, scenario, seed, why
        super().__init__(
            f"{path}: trace file of episode {scenario}/{seed} {why}; run the same "
            "'villagelab run' command with --repair to re-run the damaged episodes"
        )


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def parse_table(data: bytes, name: str) -> pa.Table:
    """A trace file's bytes as its table (fixed schema), page checksums verified."""
    table = pq.read_table(pa.BufferReader(data), page_checksum_verification=True)
    if name not in TABLES:  # an agent's own table: the schema its file declares
        return table
    return table.cast(TABLES[name]).replace_schema_metadata(TABLES[name].metadata)


MAX_TRACE_BYTES = 1 << 30  # one episode's table; the largest seen here are a few MB


def _trace_bytes(fs: Any, path: str, size: int | None, inside: str | None) -> bytes:
    """A trace file's bytes, checked before they are read: a regular file (never a FIFO or a
    device, never a link out of `inside`, the trace folder), of the recorded `size` and at
    most MAX_TRACE_BYTES - so a pipe cannot hang a reader, nor a huge file fill its memory."""
    if isinstance(fs, pafs.LocalFileSystem):
        if not os.path.lexists(path):
            raise FileNotFoundError(path)
        return read_regular(path, MAX_TRACE_BYTES, size, None if inside is None else Path(inside))
    info = fs.get_file_info(path)
    if info.type == pafs.FileType.NotFound:
        raise FileNotFoundError(path)
    if info.type != pafs.FileType.File:
        raise InputError(f"{path}: not a file")
    if size is not None and info.size != size:
        raise InputError(f"{path}: {info.size:,} bytes; expected the {size:,} its record names")
    if info.size is not None and info.size > MAX_TRACE_BYTES:
        raise InputError(f"{path}: {info.size:,} bytes; expected at most {MAX_TRACE_BYTES:,}")
    with fs.open_input_file(path) as fh:
        return bytes(fh.read(MAX_TRACE_BYTES + 1))


def verified_table(
    fs: Any,
    path: str,
    name: str,
    scenario: str,
    seed: int,
    expected: str | None,
    size: int | None = None,
    inside: str | None = None,
) -> pa.Table:
    """The table in `path`, read once: a regular file of the recorded size (`_trace_bytes`),
    its SHA-256 checked against `expected` (when one was recorded), its pages against their
    checksums, its rows against the episode they belong to."""
    try:
        data = _trace_bytes(fs, path, size, inside)
    except FileNotFoundError:
        raise TraceDamaged(path, scenario, seed, "is missing") from None
    except InputError as exc:
        why = str(exc).removeprefix(f"{path}: ")
        raise TraceDamaged(path, scenario, seed, f"cannot be read ({why})") from None
    except OSError as exc:
        raise TraceDamaged(path, scenario, seed, f"cannot be read ({exc})") from None
    if len(data) > MAX_TRACE_BYTES:
        raise TraceDamaged(path, scenario, seed, f"is larger than {MAX_TRACE_BYTES:,} bytes")
    if expected is not None and sha256(data) != expected:
        raise TraceDamaged(
            path, scenario, seed, "is not the file the run wrote (its SHA-256 differs)"
        )
    try:
        table = parse_table(data, name)
    except (pa.ArrowException, OSError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise TraceDamaged(path, scenario, seed, f"is not readable Parquet ({first})") from None
    # a file moved to another episode's place holds that episode's rows
    if table.num_rows and not (
        pc.all(pc.equal(table["scenario"], scenario)).as_py()
        and pc.all(pc.equal(table["seed"], seed)).as_py()
    ):
        raise TraceDamaged(path, scenario, seed, "holds the rows of another episode")
    return table


KEYED = "seal"  # a manifest's keyed seal: {"key_id": ..., "hmac": ...}


def _canonical(document: Mapping[str, Any], *without: str) -> bytes:
    body = {k: v for k, v in document.items() if k not in without}
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def keyed_seal(document: Mapping[str, Any]) -> dict[str, str]:
    """An HMAC of the document (without its seals) under this user's current seal key, which
    no run folder holds (`villagelab.seal_keys`): whoever edits a folder cannot reseal it."""
    kid, _ = seal_keys.current()
    return {"key_id": kid, "hmac": seal_keys.mac(kid, _canonical(document, "sha256", KEYED))}


def keyed_problem(document: Mapping[str, Any]) -> str | None:
    """What is wrong with a document's keyed seal (None: it is the one its key makes)."""
    given = document.get(KEYED)
    if not isinstance(given, dict) or not isinstance(given.get("key_id"), str):
        return "has no keyed seal (written by hand, or before villagelab keyed its seals)"
    kid = given["key_id"]
    try:
        ok = seal_keys.matches(kid, _canonical(document, "sha256", KEYED), given.get("hmac", ""))
    except seal_keys.UnknownKey:
        return (
            f"is sealed with the key {kid[:16]!r}, which is not among this user's keys "
            f"({seal_keys.keys_dir()}); copy {kid[:16]}.key there from the machine that made "
            "it, or run it again here"
        )
    if not ok:
        return (
            "was edited and resealed since the run wrote it (its checksum matches, its keyed "
            "seal does not: a checksum anyone can recompute, the keyed seal only its key)"
        )
    return None


def seal(document: Mapping[str, Any], own: str = "sha256") -> str:
    """The SHA-256 of a JSON document (a manifest, a baseline) without its own seal's key
    `own`: an edit anywhere in it, by hand or by a flipped byte, breaks the seal."""
    return sha256(_canonical(document, own))
