"""The trace store: one Parquet file per table and episode, written atomically (design §4).

Layout: DIR/traces/<table>/<scenario>/<seed>.parquet — plain folder names, the key columns live
inside the files. A write goes to a temp file whose name starts with '.', is fsynced, then
renamed, so readers never see half a file and a killed run leaves only orphan temp files.

DIR is a local folder, or — for workers on a cluster writing where the driver can read — a
URI pyarrow understands (file://, s3://, gs://, hdfs://, abfs://).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from villagelab.files import atomic_write_bytes

from .declared import NAME
from .integrity import sha256, verified_table
from .schema import TABLES, as_written, trace_names

PARQUET_OPTIONS: dict[str, Any] = {"compression": "zstd", "write_page_checksum": True}
# pages written with checksums are read with them verified (a flipped byte is an error)
_CHECKED = ds.ParquetFileFormat(
    default_fragment_scan_options=ds.ParquetFragmentScanOptions(page_checksum_verification=True)
)


def episode_path(root: Path, table: str, scenario: str, seed: int) -> Path:
    return within(root, Path(root) / "traces" / table / scenario / f"{seed}.parquet")


def is_uri(location: str | Path) -> bool:
    return "://" in str(location)


def join_uri(location: str, *parts: str) -> str:
    """Path segments appended to a URI's path, before any query (`?endpoint_override=…`)."""
    path, query = (location.split("?", 1) + [""])[:2]
    joined = "/".join([path.rstrip("/"), *parts])
    return f"{joined}?{query}" if query else joined


def within(root: str | Path, path: str | Path) -> Path:
    """`path`, checked to lie under `root` (a name that reached a path can never escape)."""
    base, full = Path(root).resolve(), Path(path).resolve()
    if full != base and base not in full.parents:
        raise ValueError(f"{path} lies outside {root}")
    return Path(path)


def filesystem(location: str | Path) -> tuple[pafs.FileSystem, str]:
    """The filesystem and base path of a local folder or a URI."""
    if is_uri(location):
        try:
            found: tuple[pafs.FileSystem, str] = pafs.FileSystem.from_uri(str(location))
            return found
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise ValueError(f"{location}: not a trace location pyarrow can open ({exc})") from None
    return pafs.LocalFileSystem(), str(Path(location).resolve())


def _parquet(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **PARQUET_OPTIONS)
    return bytes(sink.getvalue().to_pybytes())


Digests = dict[str, str]  # an episode's trace files: table name → SHA-256 of its bytes


Sizes = dict[str, int]  # an episode's trace files: table name → its size in bytes


def write_episode(
    root: str | Path, scenario: str, seed: int, tables: dict[str, pa.Table]
) -> tuple[Digests, Sizes]:
    """One episode's tables under `root` (a folder, or a URI that workers share); returns
    each file's SHA-256 and size, for the manifest. Its tables are the harness's and those
    its agent declared."""
    names = trace_names(tables)
    data = {name: _parquet(as_written(name, tables[name])) for name in names}
    digests = {name: sha256(data[name]) for name in names}
    sizes = {name: len(data[name]) for name in names}
    if not is_uri(root):
        for name in names:
            atomic_write_bytes(episode_path(Path(root), name, scenario, seed), data[name])
        return digests, sizes
    fs, base = filesystem(root)
    for name in names:
        folder = f"{base}/traces/{name}/{scenario}"
        fs.create_dir(folder, recursive=True)
        # a '.'-named temp moved into place: readers skip it; object stores publish on close
        tmp = f"{folder}/.{seed}.parquet.{secrets.token_hex(6)}.tmp"
        try:
            with fs.open_output_stream(tmp) as out:
                out.write(data[name])
            fs.move(tmp, f"{folder}/{seed}.parquet")
        except BaseException:
            with contextlib.suppress(OSError):
                fs.delete_file(tmp)
            raise
    return digests, sizes


def _episode_file(base: str, name: str, scenario: str, seed: int) -> str:
    return f"{base}/traces/{name}/{scenario}/{seed}.parquet"


def read_episode(
    root: str | Path,
    scenario: str,
    seed: int,
    digests: Digests | None = None,
    sizes: Sizes | None = None,
) -> dict[str, pa.Table]:
    """One written episode's tables, exactly as the episode returned them; each file checked
    (before it is read) to be a regular file inside `root` of the size recorded (`sizes`,
    from the manifest, when it has them) and then against its recorded SHA-256 (`digests`)
    and its page checksums, or a `TraceDamaged` naming the file and the episode. Its tables
    are those `digests` name, or without them the harness's and any other found for it."""
    fs, base = filesystem(root)
    names = trace_names(_declared_tables(fs, base, scenario, seed) if digests is None else digests)
    return {
        n: verified_table(
            fs,
            _episode_file(base, n, scenario, seed),
            n,
            scenario,
            seed,
            None if digests is None else digests.get(n, ""),
            size=None if sizes is None else sizes.get(n),
            inside=None if is_uri(root) else str(root),
        )
        for n in names
    }


def _declared_tables(fs: pafs.FileSystem, base: str, scenario: str | None, seed: int) -> list[str]:
    """The tables under `base` an agent declared that hold a file of this episode (or of
    any episode, without one: `scenario` None)."""
    found = fs.get_file_info(pafs.FileSelector(f"{base}/traces", allow_not_found=True))
    names = [f.base_name for f in found if f.type == pafs.FileType.Directory]
    declared = [n for n in names if n not in TABLES and NAME.match(n)]
    if scenario is None:
        return declared
    return [
        n
        for n in declared
        if fs.get_file_info(_episode_file(base, n, scenario, seed)).type == pafs.FileType.File
    ]


def read_verified(
    root: str | Path,
    episodes: Mapping[tuple[str, int], Digests],
    sizes: Mapping[tuple[str, int], Sizes] | None = None,
) -> dict[str, pd.DataFrame]:
    """The traces of exactly these episodes, every file checked against its recorded size and
    digest (what `score` and `inspect` read: a missing, swapped, altered or substituted file
    is an error)."""
    parts: dict[str, list[pa.Table]] = {name: [] for name in trace_names()}
    for (scenario, seed), digests in episodes.items():  # in the manifest's (the run's) order
        recorded = None if sizes is None else sizes.get((scenario, seed))
        for name, table in read_episode(root, scenario, seed, digests, recorded).items():
            parts.setdefault(name, []).append(table)
    return {
        name: (
            pa.concat_tables(parts[name]) if parts[name] else TABLES[name].empty_table()
        ).to_pandas()
        for name in trace_names(parts)
    }


def read_table(
    root: str | Path, name: str, episodes: Collection[tuple[str, int]] | None = None
) -> pd.DataFrame:
    """Every episode's rows of one table, with the table's fixed schema (empty if none); an
    agent's own table with the schema its files have."""
    fs, base = filesystem(root)
    folder = f"{base}/traces/{name}"
    found = fs.get_file_info(pafs.FileSelector(folder, allow_not_found=True, recursive=True))
    files = sorted(
        f.path
        for f in found
        if f.type == pafs.FileType.File
        and f.base_name.endswith(".parquet")
        and not f.base_name.startswith(".")
    )
    if episodes is not None:  # only these (scenario, seed) episodes, e.g. a manifest's
        wanted = {f"{scenario}/{seed}.parquet" for scenario, seed in episodes}
        files = [f for f in files if "/".join(f.rsplit("/", 2)[-2:]) in wanted]
    if not files:
        return TABLES[name].empty_table().to_pandas() if name in TABLES else pd.DataFrame()
    dataset = ds.dataset(files, schema=TABLES.get(name), format=_CHECKED, filesystem=fs)
    return dataset.to_table().to_pandas()


def read_traces(
    root: str | Path, episodes: Collection[tuple[str, int]] | None = None
) -> dict[str, pd.DataFrame]:
    """Every table under `root`: the harness's, and those agents declared."""
    fs, base = filesystem(root)
    names = trace_names(_declared_tables(fs, base, None, 0))
    return {name: read_table(root, name, episodes) for name in names}


def sweep_orphans(root: Path) -> int:
    """Remove temp files left by a killed writer; returns how many."""
    count = 0
    # mkstemp names: .<file>.<random>.tmp, beside the traces and beside the manifest
    for tmp in [*Path(root).glob("traces/*/*/.*.tmp"), *Path(root).glob(".manifest.json.*.tmp")]:
        tmp.unlink(missing_ok=True)
        count += 1
    return count
