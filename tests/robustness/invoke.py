"""The CLI's entry point called in this process (a process start costs seconds): its exit
code, what it printed, and whether it hung (past a deadline, by SIGALRM)."""

from __future__ import annotations

import contextlib
import io
import signal
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .mutations import ACCEPT, REFUSE, Mutation

REFUSED, ACCEPTED, FAILED = "refused cleanly", "accepted correctly", "failed"


class Hang(BaseException):
    """Past the deadline (a BaseException: the CLI's own handlers must not swallow it)."""


@dataclass(frozen=True)
class Outcome:
    code: int | None  # None: it hung
    stdout: str
    stderr: str


def cli(*args: str, seconds: float = 60.0) -> Outcome:
    from experiments.cli.main import main

    def hang(signum: int, frame: object) -> None:
        raise Hang

    out, err = io.StringIO(), io.StringIO()
    argv, previous = sys.argv, signal.signal(signal.SIGALRM, hang)
    sys.argv = ["villagelab", *args]
    signal.setitimer(signal.ITIMER_REAL, seconds)
    code: int | None = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except Hang:
        code = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.argv = argv
    return Outcome(code, out.getvalue(), err.getvalue())


def clean_refusal(outcome: Outcome, path: Path) -> bool:
    """Exit 2 with a message that names the file, and no traceback."""
    said = outcome.stderr
    return (
        outcome.code == 2
        and str(path.name) in said
        and "Traceback" not in said
        and "internal error" not in said
    )


def judge(
    kind: str, mutation: Mutation, run: bool = False, seconds: float = 60.0
) -> tuple[str, str]:
    """(verdict, detail) for one mutation of a policy or a scenario, through the commands
    `policy validate` / `scenario validate`; an accepted scenario is also run (one episode,
    serially) when `run`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{kind}.yaml"
        path.write_bytes(mutation.data)
        got = cli(kind, "validate", str(path), seconds=seconds)
        if got.code is None:
            return FAILED, "hang in validate"
        if got.code == 2:
            if not clean_refusal(got, path):
                return FAILED, f"unclean refusal: {got.stderr[-600:]}"
            if mutation.expect == ACCEPT:
                return FAILED, f"a valid file refused: {got.stderr[-300:]}"
            return REFUSED, ""
        if got.code != 0:
            return FAILED, f"exit {got.code}: {got.stderr[-600:]}"
        if mutation.expect == REFUSE:
            return FAILED, f"accepted, should be refused: {got.stdout[-300:]}"
        if kind == "policy":
            return _policy_correct(path)
        if not run:
            return ACCEPTED, ""
        ran = cli(
            "run",
            "--scenario",
            str(path),
            "--policy",
            str(Path(__file__).resolve().parent.parent.parent / "policies" / "baseline.yaml"),
            "--seeds",
            "0",
            "--serial",
            "--out",
            str(Path(tmp) / "out"),
            "--episode-timeout",
            str(seconds),
            seconds=seconds * 2,
        )
        if ran.code is None:
            return FAILED, "hang in run"
        if ran.code in (0, 1):  # 1: a guardrail broken, a correct result
            return ACCEPTED, ""
        if ran.code == 2 and clean_refusal(ran, path):  # refused before running (e.g. its cost)
            return REFUSED, ""
        return FAILED, f"run exit {ran.code}: {ran.stderr[-600:]}"


def _policy_correct(path: Path) -> tuple[str, str]:
    """An accepted policy must hold exactly the file's values (defaults for the rest)."""
    import yaml

    from policies import WHITELIST, load_policy

    loaded = load_policy(path)
    given = yaml.safe_load(path.read_bytes()) or {}
    for p in WHITELIST:
        family, key = p.name.split(".", 1)
        expected = (given.get(family) or {}).get(key, p.default)
        if loaded[p.name] != expected or isinstance(loaded[p.name], bool) != isinstance(
            expected, bool
        ):
            return FAILED, f"{p.name}: loaded {loaded[p.name]!r}, the file says {expected!r}"
    return ACCEPTED, ""
