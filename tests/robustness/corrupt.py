"""Damage to what villagelab wrote, and the verdict on what a command made of it: a finished
run folder (any file cut, a byte changed, emptied or deleted) through `score`, a study's
Optuna journal (cut, a byte changed, a line dropped or repeated) through `report`.

Verdicts: refused cleanly (exit 2 naming the damaged file, no traceback), accepted correctly
(the very scorecard of the undamaged folder; for a journal, an answer), or failed (a
traceback, another exit code, or a different scorecard without an error: a silent wrong
answer)."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import strategies as st

from .invoke import ACCEPTED, FAILED, REFUSED, cli
from .mutations import ROOT

SILENT = "silent wrong answer"


def finished_run(root: Path) -> tuple[Path, str]:
    """A finished run folder under `root` and the scorecard `score` gives for it."""
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
    how = draw(st.sampled_from(["cut", "byte", "delete", "empty", *HOSTILE]))
    if how in HOSTILE:
        return draw(hostile(folder, name, how))
    if how == "delete":
        return name, "deleted", None
    if how == "empty":
        return name, "emptied", b""
    at = draw(st.integers(0, max(len(data) - 1, 0)))
    if how == "cut":
        return name, f"cut at {at}", data[:at]
    value = draw(st.integers(0, 255))
    return name, f"byte {at} set to {value}", data[:at] + bytes([value]) + data[at + 1 :]


# what a hostile user does to a folder (issue 29): special files in place of one, a sparse
# giant, a link out of the folder, a manifest nested or with a number out of range, and an
# edit resealed with a recomputed checksum
HOSTILE = ("fifo", "sparse", "link_out", "nested", "number", "reseal")
FIFO, SPARSE, LINK_OUT = b"\0fifo", b"\0sparse", b"\0link-out"  # markers: made, not written


@st.composite
def hostile(draw: st.DrawFn, folder: Path, name: str, how: str) -> tuple[str, str, bytes | None]:
    import json

    from harness.engine.integrity import seal

    if how in ("fifo", "sparse", "link_out"):
        marker = {"fifo": FIFO, "sparse": SPARSE, "link_out": LINK_OUT}[how]
        return name, f"replaced by a {how.replace('_', ' ')}", marker
    if how == "nested":
        depth = draw(st.sampled_from([65, 1000, 200_000]))
        return "manifest.json", f"nested {depth} deep", b"[" * depth + b"]" * depth
    meta = json.loads((folder / "manifest.json").read_text())
    if how == "number":
        meta["seeds"] = [0, 1]
        meta["sha256"] = seal(meta)
        number = draw(st.sampled_from(["1e400", "-1e400", "NaN", "Infinity", "9" * 5000]))
        text = json.dumps(meta).replace('"seeds": [0, 1]', f'"seeds": [0, {number}]')
        return "manifest.json", f"seeds [0, {number[:12]}]", text.encode()
    scenario = min(meta["metrics"])
    dropped = meta["metrics"][scenario].pop(draw(st.integers(0, 2)))
    meta["sha256"] = seal(meta)  # what anyone can recompute
    return (
        "manifest.json",
        f"metric {dropped} dropped, checksum resealed",
        json.dumps(meta).encode(),
    )


def _harm(path: Path, new: bytes, outside: Path) -> None:
    import os

    if new in (FIFO, LINK_OUT):
        if new == LINK_OUT:
            outside.write_bytes(path.read_bytes())
        path.unlink()
        if new == FIFO:
            os.mkfifo(path)
        else:
            path.symlink_to(outside)
    elif new == SPARSE:
        with open(path, "r+b") as fh:
            fh.truncate(3 << 30)
    else:
        path.write_bytes(new)


def judge_folder(
    folder: Path, card: str, copy: Path, harm: tuple[str, str, bytes | None]
) -> tuple[str, str]:
    """`score` on a copy of `folder` with `harm` done: (verdict, detail)."""
    name, what, new = harm
    shutil.copytree(folder, copy)
    try:
        if new is None:
            (copy / name).unlink()
        else:
            _harm(copy / name, new, copy.parent / f"{copy.name}.outside")
        said = copy.parent / f"{copy.name}.json"
        got = cli("score", str(copy), "--json", str(said))
        where = f"{name} {what}"
        if "Traceback" in got.stderr or "internal error" in got.stderr:
            return FAILED, f"{where}: traceback: {got.stderr[-600:]}"
        if got.code == 2:
            if Path(name).name in got.stderr or "manifest" in got.stderr:
                return REFUSED, ""
            return FAILED, f"{where}: refused without naming the file: {got.stderr[-300:]}"
        if got.code not in (0, 1):
            return FAILED, f"{where}: exit {got.code}: {got.stderr[-300:]}"
        if said.read_text() != card:
            return FAILED, f"{where}: {SILENT}"
        return ACCEPTED, ""
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def study(root: Path) -> tuple[Path, list[str]]:
    """A small finished study: its runs folder and the arguments that name it."""
    config = root / "search.yaml"
    config.write_text("scenarios: [public_fact]\nseeds: 0-1\n")
    args = ["--study", "s", "--runs-dir", str(root / "runs")]
    searched = cli("search", *args, "--trials", "2", "--config", str(config), "--serial")
    assert searched.code == 0, searched.stderr
    return root / "runs", args


@st.composite
def journal_damage(draw: st.DrawFn, original: bytes) -> tuple[str, bytes]:
    lines = original.splitlines(keepends=True)
    how = draw(st.sampled_from(["cut", "byte", "drop", "repeat"]))
    if how == "cut":
        at = draw(st.integers(0, len(original)))
        return f"cut at {at}", original[:at]
    if how == "byte":
        at = draw(st.integers(0, len(original) - 1))
        value = draw(st.integers(0, 255))
        return f"byte {at} set to {value}", original[:at] + bytes([value]) + original[at + 1 :]
    i = draw(st.integers(0, len(lines) - 1))
    kept = lines[:i] + lines[i + 1 :] if how == "drop" else lines[: i + 1] + lines[i:]
    return f"line {i} {'dropped' if how == 'drop' else 'repeated'}", b"".join(kept)


def judge_journal(runs: Path, args: list[str], harm: tuple[str, bytes]) -> tuple[str, str]:
    """`report` on the study with its journal damaged (restored after): (verdict, detail)."""
    what, damaged = harm
    journal = runs / "optuna.journal"
    original = journal.read_bytes()
    journal.write_bytes(damaged)
    try:
        got = cli("report", *args, seconds=300)
    finally:
        journal.write_bytes(original)
    if "Traceback" in got.stderr or "internal error" in got.stderr:
        return FAILED, f"journal {what}: traceback: {got.stderr[-600:]}"
    if got.code == 2:
        if "optuna.journal" in got.stderr or "study" in got.stderr:
            return REFUSED, ""
        return FAILED, f"journal {what}: refused without naming it: {got.stderr[-300:]}"
    if got.code != 0:
        return FAILED, f"journal {what}: exit {got.code}: {got.stderr[-300:]}"
    return ACCEPTED, ""
