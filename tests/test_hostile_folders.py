"""`score` and every reader of a run folder withstand hostile folders (issue 29): only regular
files inside the folder are read, each trace file's size is checked against the manifest before
it is read, JSON is bounded in depth and numbers, and the manifest's keyed seal (an HMAC under a
key outside the folder) shows an edit that was resealed with a plain checksum. Each is refused
with exit 2 and a message, never a hang, a traceback or the whole file read."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from harness.engine.integrity import keyed_seal, seal

from .conftest import ROOT, villagelab

CAREFUL = str(ROOT / "policies" / "careful.yaml")
RUN = ["run", "--scenario", "public_fact", "--policy", CAREFUL, "--seeds", "0-1", "--serial"]
TRACE = Path("traces") / "actions" / "public_fact" / "0.parquet"


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "run"
    result = villagelab(*RUN, "--out", str(out))
    assert result.returncode in (0, 1), result.stderr
    return out


@pytest.fixture
def folder(written, tmp_path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(written, copy, symlinks=True)
    return copy


def meta_of(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def resealed_by_checksum(folder: Path, meta: dict) -> None:
    """What anyone can do to a folder: edit, then recompute the plain SHA-256."""
    meta["sha256"] = seal(meta)
    (folder / "manifest.json").write_text(json.dumps(meta))


MEASURED = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "sys.stdout.write(done.stdout)\n"
    "sys.stderr.write(done.stderr)\n"
    "print(f'peak_kb={resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}', file=sys.stderr)\n"
    "sys.exit(done.returncode)\n"
)


def score(folder: Path):  # type: ignore[no-untyped-def]
    """`villagelab score`, its peak memory measured (a file read whole would show there)."""
    import subprocess

    exe = Path(sys.executable).with_name("villagelab")
    result = subprocess.run(
        [sys.executable, "-c", MEASURED, str(exe), "score", str(folder)],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=600,
    )
    peak = int(result.stderr.rsplit("peak_kb=", 1)[1].split()[0])
    assert peak < 1 << 20, f"peak memory {peak} kB"  # under 1 GiB: nothing of 3 GB was read
    return result


def refused(result, says: str) -> None:  # type: ignore[no-untyped-def]
    assert result.returncode == 2, result.stdout + result.stderr
    assert says in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_the_untouched_folder_scores(folder):
    result = score(folder)
    assert result.returncode in (0, 1), result.stderr
    assert "objective" in result.stdout


def test_a_named_pipe_in_place_of_a_trace_is_refused_at_once(folder):
    (folder / TRACE).unlink()
    os.mkfifo(folder / TRACE)
    refused(score(folder), "not a regular file")


def test_a_huge_sparse_file_in_place_of_a_trace_is_refused_before_it_is_read(folder):
    with open(folder / TRACE, "r+b") as fh:
        fh.truncate(3 << 30)  # 3 GB, sparse: costs nothing to make
    refused(score(folder), "expected the")


def test_a_symlink_out_of_the_folder_is_refused(folder, tmp_path):
    outside = tmp_path / "elsewhere.parquet"
    shutil.copy(folder / TRACE, outside)
    (folder / TRACE).unlink()
    (folder / TRACE).symlink_to(outside)
    refused(score(folder), "leads out of")


def test_a_device_in_place_of_the_manifest_is_refused(folder):
    (folder / "manifest.json").unlink()
    (folder / "manifest.json").symlink_to("/dev/zero")
    refused(score(folder), "manifest.json")


def test_a_deeply_nested_manifest_is_refused(folder):
    (folder / "manifest.json").write_text("[" * 200_000 + "]" * 200_000)
    refused(score(folder), "nested deeper than")


def test_a_number_out_of_range_is_refused_even_resealed(folder):
    meta = meta_of(folder)
    meta["seeds"] = [0, 1e400]  # json writes Infinity; the file says 1e400
    text = json.dumps({**meta, "sha256": "0"}).replace("Infinity", "1e400")
    (folder / "manifest.json").write_text(text)
    refused(score(folder), "out of range")


def test_a_metric_dropped_and_resealed_by_checksum_is_detected(folder):
    meta = meta_of(folder)
    meta["metrics"] = {
        scenario: [m for m in names if m != "isolation_violations"]
        for scenario, names in meta["metrics"].items()
    }
    resealed_by_checksum(folder, meta)
    refused(score(folder), "edited and resealed")


def test_a_trace_rewritten_with_its_digest_and_resealed_is_detected(folder):
    import hashlib

    meta = meta_of(folder)
    other = (folder / TRACE).with_name("1.parquet").read_bytes()
    (folder / TRACE).write_bytes(other)  # another episode's actions in seed 0's place
    entry = next(e for e in meta["episodes"] if e["seed"] == 0)
    entry["sha256"]["actions"] = hashlib.sha256(other).hexdigest()
    entry["bytes"]["actions"] = len(other)
    resealed_by_checksum(folder, meta)
    refused(score(folder), "edited and resealed")


def test_a_manifest_without_a_keyed_seal_or_with_an_unknown_key_is_refused(folder):
    meta = meta_of(folder)
    del meta["seal"]
    resealed_by_checksum(folder, meta)
    refused(score(folder), "has no keyed seal")
    meta["seal"] = {"key_id": "0" * 16, "hmac": "0"}
    resealed_by_checksum(folder, meta)
    refused(score(folder), "is sealed with the key '0000000000000000'")


def test_a_reseal_with_the_users_key_is_what_the_run_does(folder):
    """The key is the boundary: whoever holds it can seal (the run, or this test)."""
    meta = meta_of(folder)
    meta["seal"] = keyed_seal(meta)
    resealed_by_checksum(folder, meta)
    assert score(folder).returncode in (0, 1)


def test_the_seal_key_lives_outside_the_folder_and_only_its_id_is_recorded(written):
    meta = meta_of(written)
    keys = Path(os.environ["VILLAGELAB_SEAL_KEYS"])
    kid = meta["seal"]["key_id"]
    assert (keys / f"{kid}.key").exists()
    assert oct((keys / f"{kid}.key").stat().st_mode & 0o777) == "0o600"
    key = (keys / f"{kid}.key").read_text().strip()
    assert not [p for p in written.rglob("*") if p.is_file() and key.encode() in p.read_bytes()]
    entry = meta["episodes"][0]
    assert sorted(entry["bytes"]) == sorted(entry["sha256"])


def test_a_key_folder_that_cannot_be_made_stops_a_run_before_anything_is_written(tmp_path):
    (tmp_path / "a_file").write_text("")
    keys = tmp_path / "a_file" / "keys"
    result = villagelab(
        *RUN, "--out", str(tmp_path / "out"), env={"VILLAGELAB_SEAL_KEYS": str(keys)}
    )
    refused(result, "cannot keep the run folders' seal key there")
    assert not (tmp_path / "out").exists()
