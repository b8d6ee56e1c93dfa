"""What makes a trace file trustworthy: its SHA-256, recorded when it is written, checked
whenever it is read for an answer; and Parquet's own page checksums, verified on every read.

A file that is missing, unreadable or not the one recorded is a `TraceDamaged` error naming
the file and the episode: nothing is scored, inspected or resumed from it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from policies import InputError

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
    return table.cast(TABLES[name]).replace_schema_metadata(TABLES[name].metadata)


def verified_table(
    fs: Any, path: str, name: str, scenario: str, seed: int, expected: str | None
) -> pa.Table:
    """The table in `path`, read once: its SHA-256 checked against `expected` (when one was
    recorded), its pages against their checksums, its rows against the episode they belong to."""
    try:
        with fs.open_input_file(path) as fh:
            data = fh.read()
    except FileNotFoundError:
        raise TraceDamaged(path, scenario, seed, "is missing") from None
    except OSError as exc:
        raise TraceDamaged(path, scenario, seed, f"cannot be read ({exc})") from None
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


def seal(document: Mapping[str, Any], own: str = "sha256") -> str:
    """The SHA-256 of a JSON document (a manifest, a baseline) without its own seal's key
    `own`: an edit anywhere in it, by hand or by a flipped byte, breaks the seal."""
    body = {k: v for k, v in document.items() if k != own}
    return sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
