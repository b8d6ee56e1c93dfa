"""The trace store: one Parquet file per table and episode, written atomically (DESIGN §4).

Layout: DIR/traces/<table>/<scenario>/<seed>.parquet — plain folder names, the key columns live
inside the files. A write goes to a temp file whose name starts with '.', is fsynced, then
renamed, so readers never see half a file and a killed run leaves only orphan temp files.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from .schema import TABLE_NAMES, TABLES

PARQUET_OPTIONS: dict[str, Any] = {"compression": "zstd", "write_page_checksum": True}
_UMASK = os.umask(0)  # read once: mkstemp makes private files, ours follow the umask
os.umask(_UMASK)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Readers see the old file or the new one, never half of one; a failure leaves no temp."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable where the OS allows
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def atomic_write_json(path: Path, payload: Any) -> None:
    atomic_write_bytes(Path(path), (json.dumps(payload, indent=2, sort_keys=True) + "\n").encode())


def episode_path(root: Path, table: str, scenario: str, seed: int) -> Path:
    return Path(root) / "traces" / table / scenario / f"{seed}.parquet"


def write_episode(root: Path, scenario: str, seed: int, tables: dict[str, pa.Table]) -> None:
    for name in TABLE_NAMES:
        table = tables[name].cast(TABLES[name])
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, **PARQUET_OPTIONS)
        atomic_write_bytes(episode_path(root, name, scenario, seed), sink.getvalue().to_pybytes())


def read_table(root: Path, name: str) -> pd.DataFrame:
    """Every episode's rows of one table, with the table's fixed schema (empty if none)."""
    folder = Path(root) / "traces" / name
    files = sorted(str(p) for p in folder.glob("*/*.parquet")) if folder.exists() else []
    if not files:
        return TABLES[name].empty_table().to_pandas()
    dataset = ds.dataset(files, schema=TABLES[name], format="parquet")
    return dataset.to_table().to_pandas()


def read_traces(root: Path) -> dict[str, pd.DataFrame]:
    return {name: read_table(root, name) for name in TABLE_NAMES}


def sweep_orphans(root: Path) -> int:
    """Remove temp files left by a killed writer; returns how many."""
    count = 0
    for tmp in Path(root).glob("traces/*/*/.*.tmp"):  # mkstemp names: .<file>.<random>.tmp
        tmp.unlink(missing_ok=True)
        count += 1
    return count
