"""The census of issue 17: generated policy and scenario mutations through the CLI's loading
path, and generated damage to a finished run folder (`score`) and to a study's journal
(`report`), tallied as "kind | cases tried | refused cleanly | accepted correctly | failed".

    .venv/bin/python -m tests.robustness.census --policies 500 --scenarios 500
    .venv/bin/python -m tests.robustness.census --policies 0 --scenarios 0 --corruptions 500

Accepted scenarios are also run (one episode, serially). A damaged run folder is accepted
correctly only with the very scorecard of the undamaged one (a different one is a silent wrong
answer: failed); a damaged journal is accepted when `report` answers. The failures are listed
after the table with what was done and what happened.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as fixed_seed

from . import corrupt
from .invoke import ACCEPTED, FAILED, REFUSED, judge
from .mutations import policy_mutations, scenario_mutations


def tally(kind: str, count: int, run: bool, seed: int) -> tuple[Counter[str], list[str]]:
    counts: Counter[str] = Counter()
    failures: list[str] = []
    n = [0]
    root = Path(tempfile.mkdtemp(prefix=f"census-{kind}-"))
    if kind == "run folder":
        folder, card = corrupt.finished_run(root)
        strategy = corrupt.damage(folder)

        def verdict(harm):  # type: ignore[no-untyped-def]
            n[0] += 1
            return corrupt.judge_folder(folder, card, root / f"case-{n[0]}", harm)
    elif kind == "journal":
        runs, args = corrupt.study(root)
        strategy = corrupt.journal_damage((runs / "optuna.journal").read_bytes())

        def verdict(harm):  # type: ignore[no-untyped-def]
            return corrupt.judge_journal(runs, args, harm)
    else:
        strategy = policy_mutations() if kind == "policy" else scenario_mutations()

        def verdict(mutation):  # type: ignore[no-untyped-def]
            said, detail = judge(kind, mutation, run=run)
            return said, f"{mutation.what}: {detail}"

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @fixed_seed(seed)
    @given(strategy)
    def case(drawn) -> None:  # type: ignore[no-untyped-def]
        said, detail = verdict(drawn)
        counts[said] += 1
        if said == FAILED:
            failures.append(f"{kind}: {detail}")

    case()
    return counts, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--policies", type=int, default=500)
    parser.add_argument("--scenarios", type=int, default=500)
    parser.add_argument("--corruptions", type=int, default=0, help="damaged run folders")
    parser.add_argument("--journals", type=int, default=0, help="damaged study journals")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--no-run", action="store_true", help="do not run accepted scenarios")
    args = parser.parse_args()
    os.environ.setdefault("VILLAGELAB_PROCESS_RECORDS", tempfile.mkdtemp())
    rows, failures = [], []
    for kind, count in (
        ("policy", args.policies),
        ("scenario", args.scenarios),
        ("run folder", args.corruptions),
        ("journal", args.journals),
    ):
        if count < 1:
            continue
        counts, failed = tally(kind, count, not args.no_run, args.seed)
        hangs = sum("hang" in line for line in failed)
        tracebacks = sum("raceback" in line or "internal error" in line for line in failed)
        wrong = counts[FAILED] - hangs - tracebacks
        rows.append(
            (
                kind,
                sum(counts.values()),
                counts[REFUSED],
                counts[ACCEPTED],
                tracebacks,
                hangs,
                wrong,
            )
        )
        failures += failed
    print("kind | cases | refused cleanly | accepted correctly | tracebacks | hangs | wrong")
    print("---|---|---|---|---|---|---")
    for row in rows:
        print(" | ".join(map(str, row)))
    for line in failures:
        print("FAILED", line[:1500])
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
