"""Integrity (issue 17): every trace file's SHA-256 is in the manifest and checked by `score`,
`inspect` and a resumed `run`; a damaged file is an error naming the file and the episode
(exit 2), `run --repair` runs just the damaged episodes again; the manifest is sealed; a
damaged gate baseline is refused before the suite runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from experiments.evaluation.evaluate import Execution, Instrument, evaluate
from harness.engine.integrity import TraceDamaged, seal
from harness.engine.store import read_episode
from policies import load_policy

from .conftest import ROOT, villagelab

CAREFUL = ROOT / "policies" / "careful.yaml"
RUN = ["run", "--scenario", "mango_recall", "--policy", str(CAREFUL), "--seeds", "0-2", "--serial"]


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.glob("traces/*/*/*.parquet")}


def flip(path: Path, at: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    data[int(len(data) * at)] ^= 0x10
    path.write_bytes(bytes(data))


def manifest(root: Path) -> dict:
    return json.loads((root / "manifest.json").read_text())


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("integrity") / "run"
    result = villagelab(*RUN, "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def test_the_manifest_records_each_trace_files_sha256_and_seals_itself(written):
    import hashlib

    meta = manifest(written)
    assert meta["sha256"] == seal(meta)
    for entry in meta["episodes"]:
        assert entry["status"] == "ok"
        for table, digest in entry["sha256"].items():
            path = written / "traces" / table / entry["scenario"] / f"{entry['seed']}.parquet"
            assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def _swap(a: Path, b: Path) -> None:
    tmp = a.with_name("swap")
    a.rename(tmp)
    b.rename(a)
    tmp.rename(b)


def _swap_seeds(root: Path) -> None:  # every table of seeds 0 and 1 exchanged
    for table in (root / "traces").iterdir():
        _swap(table / "mango_recall" / "0.parquet", table / "mango_recall" / "1.parquet")


def _edit_manifest(change):
    def edit(root: Path) -> None:
        meta = manifest(root)
        change(meta)
        (root / "manifest.json").write_text(json.dumps(meta, indent=2))

    return edit


PROBES_1 = "traces/probes/mango_recall/1.parquet"
CORRUPTIONS = {
    # kind: (how, what the message must name)
    "trace file deleted": (lambda r: (r / PROBES_1).unlink(), [PROBES_1, "mango_recall/1"]),
    "trace file emptied": (lambda r: (r / PROBES_1).write_bytes(b""), [PROBES_1, "mango_recall/1"]),
    "trace file truncated": (
        lambda r: (r / PROBES_1).write_bytes((r / PROBES_1).read_bytes()[:200]),
        [PROBES_1, "mango_recall/1"],
    ),
    "byte flipped in a page": (lambda r: flip(r / PROBES_1), [PROBES_1, "mango_recall/1"]),
    "byte flipped in the footer": (
        lambda r: flip(r / PROBES_1, 0.97),
        [PROBES_1, "mango_recall/1"],
    ),
    "seeds swapped": (_swap_seeds, ["mango_recall/0"]),
    "status edited ok → crashed": (
        _edit_manifest(lambda m: m["episodes"][1].update(status="crashed")),
        ["manifest.json", "seal"],
    ),
    "episode entry deleted": (
        _edit_manifest(lambda m: m["episodes"].pop()),
        ["manifest.json", "seal"],
    ),
    "seed renamed in the manifest": (
        _edit_manifest(lambda m: m["episodes"][0].update(seed=7)),
        ["manifest.json", "seal"],
    ),
    "status edited and the seal removed": (
        _edit_manifest(lambda m: (m["episodes"][1].update(status="crashed"), m.pop("sha256"))),
        ["manifest.json", "--repair"],
    ),
    "manifest truncated": (
        lambda r: (r / "manifest.json").write_bytes((r / "manifest.json").read_bytes()[:400]),
        ["manifest.json", "unreadable"],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(CORRUPTIONS))
def test_score_refuses_every_corruption_naming_the_file_and_episode(written, tmp_path, kind):
    corrupt, named = CORRUPTIONS[kind]
    folder = tmp_path / "copy"
    shutil.copytree(written, folder)
    assert villagelab("score", str(folder)).returncode == 0  # the copy scores before the damage
    corrupt(folder)
    result = villagelab("score", str(folder))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    message = " ".join(result.stderr.split())  # the terminal may wrap a long path
    for part in named:
        assert part in message, message


def test_a_page_checksum_catches_a_flipped_byte_even_without_a_manifest(written, tmp_path):
    """`inspect` of a folder with no manifest (a champion's) still verifies the pages."""
    folder = tmp_path / "copy"
    shutil.copytree(written, folder)
    (folder / "manifest.json").unlink()
    path = folder / PROBES_1
    import pyarrow.parquet as pq

    chunks = pq.ParquetFile(path).metadata.row_group(0)
    big = max(
        (chunks.column(i) for i in range(chunks.num_columns)), key=lambda c: c.total_compressed_size
    )
    end = (big.dictionary_page_offset or big.data_page_offset) + big.total_compressed_size
    data = bytearray(path.read_bytes())
    data[end - 2] ^= 0x10  # the last bytes of a column chunk: its last page's data
    path.write_bytes(bytes(data))
    with pytest.raises(TraceDamaged) as caught:
        read_episode(folder, "mango_recall", 1)
    assert "CRC" in str(caught.value) or "checksum" in str(caught.value).lower()


@pytest.mark.slow
def test_inspect_refuses_a_damaged_episode_and_shows_an_intact_one(written, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(written, folder)
    flip(folder / "traces" / "state" / "mango_recall" / "2.parquet")
    args = ["--scenario", "mango_recall", "--agent", "cai"]
    intact = villagelab("inspect", str(folder), *args, "--seed", "1")
    assert intact.returncode == 0, intact.stderr
    damaged = villagelab("inspect", str(folder), *args, "--seed", "2")
    assert damaged.returncode == 2 and "Traceback" not in damaged.stderr
    assert "mango_recall/2" in damaged.stderr and "state" in damaged.stderr


# --- resume and repair ------------------------------------------------------------------------
class Stop(Exception):
    """A deterministic interruption: raised after a chosen number of finished episodes."""


def _evaluate(out: Path, *, repair: bool = False, stop_after: int | None = None):
    seen = []

    def on_done(record) -> None:
        seen.append(record)
        if stop_after is not None and len(seen) == stop_after:
            raise Stop

    return evaluate(
        load_policy(CAREFUL),
        Instrument.load(["mango_recall"]),
        (0, 1, 2),
        Execution(serial=True),
        out=out,
        on_done=on_done,
        repair=repair,
    )


def test_a_resumed_run_checks_what_it_keeps_and_repair_reruns_only_the_damaged(written, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(written, folder)
    flip(folder / "traces" / "events" / "mango_recall" / "2.parquet")
    (folder / "traces" / "beliefs" / "mango_recall" / "0.parquet").unlink()
    with pytest.raises(TraceDamaged) as caught:
        _evaluate(folder)
    assert caught.value.scenario == "mango_recall" and caught.value.seed in (0, 2)
    evaluation = _evaluate(folder, repair=True)
    assert evaluation.repaired == [("mango_recall", 0), ("mango_recall", 2)]
    assert evaluation.resumed == 1  # seed 1 was intact and kept
    assert files(folder) == files(written)  # rewritten byte for byte
    assert manifest(folder)["episodes"] == manifest(written)["episodes"]


def test_a_run_interrupted_midway_keeps_the_digests_of_what_it_finished(tmp_path):
    """Each finished episode is logged (with its digests) as it finishes: a run stopped after
    two episodes resumes with those two kept; a log line cut by the kill is ignored and its
    episode runs again; the folder ends byte-identical to an uninterrupted run's."""
    out = tmp_path / "stopped"
    with pytest.raises(Stop):
        _evaluate(out, stop_after=2)
    assert manifest(out)["complete"] is False
    log = out / "progress.jsonl"
    lines = log.read_text().splitlines()
    assert len(lines) == 2
    log.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2])  # the kill cut line 2
    resumed = _evaluate(out)
    assert resumed.resumed == 1 and not resumed.repaired
    assert not log.exists()
    fresh = tmp_path / "fresh"
    _evaluate(fresh)
    assert files(out) == files(fresh)
    assert manifest(out)["episodes"] == manifest(fresh)["episodes"]


@pytest.mark.slow
def test_run_refuses_a_damaged_folder_then_repairs_it(written, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(written, folder)
    flip(folder / PROBES_1)
    refused = villagelab(*RUN, "--out", str(folder))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "mango_recall/1" in refused.stderr and "--repair" in refused.stderr
    repaired = villagelab(*RUN, "--out", str(folder), "--repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "repaired: 1 damaged episodes run again (mango_recall/1)" in repaired.stderr
    assert files(folder) == files(written)
    assert villagelab("score", str(folder)).returncode == 0


# --- the gate's baseline ------------------------------------------------------------------------
def _sealed_baseline(tmp_path: Path) -> Path:
    data = json.loads((ROOT / "scorecards" / "baseline.json").read_text())
    data["sha256"] = seal(data)
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def _digit_flipped(path: Path) -> None:
    text = path.read_text()
    at = text.index('"mean": 0.') + len('"mean": 0.')
    digit = text[at]
    path.write_text(text[:at] + ("1" if digit != "1" else "2") + text[at + 1 :])


BASELINE_DAMAGE = {
    "truncated": lambda p: p.write_bytes(p.read_bytes()[:500]),
    "a digit flipped (sealed)": _digit_flipped,
    "a digit flipped (unsealed, older)": lambda p: (
        p.write_text(
            json.dumps({k: v for k, v in json.loads(p.read_text()).items() if k != "sha256"})
        ),
        _digit_flipped(p),
    ),
    "not a scorecard": lambda p: p.write_text('{"objective": "high"}'),
}


@pytest.mark.parametrize("kind", list(BASELINE_DAMAGE))
def test_a_damaged_baseline_is_refused_before_the_suite_runs(tmp_path, kind):
    """The gate is given an agent that cannot even be imported: had it run the suite first,
    it would have stopped on the agent. It stops on the baseline."""
    from experiments.evaluation.gate import run_gate
    from policies import InputError

    path = _sealed_baseline(tmp_path)
    from experiments.evaluation.gate import load_baseline

    assert load_baseline(path) is not None  # intact, it loads
    BASELINE_DAMAGE[kind](path)
    with pytest.raises(InputError) as caught:
        run_gate(load_policy(CAREFUL), path, Execution(serial=True, agent="no_such_module:Agent"))
    assert str(path) in str(caught.value) and "--update-baseline" in str(caught.value)


@pytest.mark.slow
def test_gate_cli_exits_2_on_a_damaged_baseline_without_running_episodes(cli, tmp_path):
    path = _sealed_baseline(tmp_path)
    _digit_flipped(path)
    result = cli(
        "gate",
        "--policy",
        str(CAREFUL),
        "--baseline",
        str(path),
        "--serial",
        "--no-mlflow",
        "--agent",
        "no_such_module:Agent",
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "seal" in result.stderr and "baseline.json" in result.stderr
