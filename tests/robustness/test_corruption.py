"""Generated damage to what villagelab wrote: any file of a finished run folder (a trace, the
manifest) cut, a byte changed, or deleted; the Optuna journal of a study cut, a byte changed, a
line dropped or repeated. `score` then refuses cleanly (exit 2 naming the damaged file, no
traceback) or, when the damage left the bytes as they were, gives the very same scorecard:
never a different answer without an error. `report` on a damaged journal answers or refuses
cleanly. In this process; CI runs a fixed sample, --robustness-full thousands."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .invoke import cli
from .mutations import ROOT

SAMPLE, FULL = 15, 2000


def sized(full: bool, sample: int = SAMPLE) -> settings:
    return settings(
        max_examples=FULL if full else sample,
        derandomize=not full,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


@pytest.fixture(autouse=True)
def _private_records(tmp_path, monkeypatch):
    monkeypatch.setenv("VILLAGELAB_PROCESS_RECORDS", str(tmp_path / "records"))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished run folder and the scorecard `score` gives for it."""
    root = tmp_path_factory.mktemp("corruption")
    ran = cli(
        "run",
        "--scenario",
        "secret",
        "--policy",
        str(ROOT / "policies" / "baseline.yaml"),
        "--seeds",
        "0-1",
        "--serial",
        "--out",
        str(root / "run"),
        seconds=600,
    )
    assert ran.code in (0, 1), ran.stderr
    scored = cli("score", str(root / "run"), "--json", str(root / "card.json"))
    assert scored.code in (0, 1), scored.stderr
    return root / "run", (root / "card.json").read_text()


@st.composite
def damage(draw: st.DrawFn, folder: Path) -> tuple[str, str, bytes | None]:
    """(file, what was done, its new bytes or None for deleted)."""
    names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    name = draw(st.sampled_from(names))
    data = (folder / name).read_bytes()
    how = draw(st.sampled_from(["cut", "byte", "delete", "empty"]))
    if how == "delete":
        return name, "deleted", None
    if how == "empty":
        return name, "emptied", b""
    at = draw(st.integers(0, max(len(data) - 1, 0)))
    if how == "cut":
        return name, f"cut at {at}", data[:at]
    value = draw(st.integers(0, 255))
    return name, f"byte {at} set to {value}", data[:at] + bytes([value]) + data[at + 1 :]


def test_a_damaged_run_folder_is_refused_or_scored_the_same(finished, tmp_path, robustness_full):
    folder, card = finished
    n = [0]

    @sized(robustness_full)
    @given(st.data())
    def case(data: st.DataObject) -> None:
        n[0] += 1
        copy = tmp_path / f"case-{n[0]}"
        shutil.copytree(folder, copy)
        name, what, new = data.draw(damage(copy))
        if new is None:
            (copy / name).unlink()
        else:
            (copy / name).write_bytes(new)
        got = cli("score", str(copy), "--json", str(copy.parent / f"card-{n[0]}.json"))
        assert "Traceback" not in got.stderr and "internal error" not in got.stderr, got.stderr
        if got.code == 2:
            assert Path(name).name in got.stderr or "manifest" in got.stderr, (what, got.stderr)
        else:  # scored: only if nothing that counts changed, and then the same answer
            assert got.code in (0, 1), (name, what, got.stderr)
            said = (copy.parent / f"card-{n[0]}.json").read_text()
            assert said == card, f"{name} {what}: a different scorecard without an error"
        shutil.rmtree(copy)

    case()


@pytest.fixture(scope="module")
def journal(tmp_path_factory):
    root = tmp_path_factory.mktemp("journal")
    config = root / "search.yaml"
    config.write_text("scenarios: [public_fact]\nseeds: 0-1\n")
    args = ["--study", "s", "--runs-dir", str(root / "runs")]
    searched = cli("search", *args, "--trials", "2", "--config", str(config), "--serial")
    assert searched.code == 0, searched.stderr
    return root / "runs", args


def test_a_damaged_journal_is_reported_cleanly(journal, tmp_path, robustness_full):
    runs, args = journal
    original = (runs / "optuna.journal").read_bytes()
    lines = original.splitlines(keepends=True)

    @sized(robustness_full, sample=5)
    @given(st.sampled_from(["cut", "byte", "drop", "repeat"]), st.data())
    def case(how: str, data: st.DataObject) -> None:
        if how == "cut":
            at = data.draw(st.integers(0, len(original)))
            damaged = original[:at]
        elif how == "byte":
            at = data.draw(st.integers(0, len(original) - 1))
            damaged = original[:at] + bytes([data.draw(st.integers(0, 255))]) + original[at + 1 :]
        else:
            i = data.draw(st.integers(0, len(lines) - 1))
            kept = lines[:i] + lines[i + 1 :] if how == "drop" else lines[: i + 1] + lines[i:]
            damaged = b"".join(kept)
        (runs / "optuna.journal").write_bytes(damaged)
        try:
            got = cli("report", *args, seconds=300)
        finally:
            (runs / "optuna.journal").write_bytes(original)
        assert "Traceback" not in got.stderr and "internal error" not in got.stderr, got.stderr
        assert got.code in (0, 2), got.stderr
        if got.code == 2:
            assert "optuna.journal" in got.stderr or "study" in got.stderr, got.stderr

    case()
