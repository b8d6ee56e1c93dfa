"""The census of issue 17: generated policy and scenario mutations through the CLI's loading
path, tallied as "kind | cases tried | refused cleanly | accepted correctly | failed".

    .venv/bin/python -m tests.robustness.census --policies 500 --scenarios 500

Accepted scenarios are also run (one episode, serially). The failures are listed after the
table with what was mutated and what happened.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as fixed_seed

from .invoke import ACCEPTED, FAILED, REFUSED, judge
from .mutations import policy_mutations, scenario_mutations


def tally(kind: str, count: int, run: bool, seed: int) -> tuple[Counter[str], list[str]]:
    counts: Counter[str] = Counter()
    failures: list[str] = []
    strategy = policy_mutations() if kind == "policy" else scenario_mutations()

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @fixed_seed(seed)
    @given(strategy)
    def case(mutation) -> None:  # type: ignore[no-untyped-def]
        verdict, detail = judge(kind, mutation, run=run)
        counts[verdict] += 1
        if verdict == FAILED:
            failures.append(f"{kind}: {mutation.what}: {detail}")

    case()
    return counts, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--policies", type=int, default=500)
    parser.add_argument("--scenarios", type=int, default=500)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--no-run", action="store_true", help="do not run accepted scenarios")
    args = parser.parse_args()
    os.environ.setdefault("VILLAGELAB_PROCESS_RECORDS", tempfile.mkdtemp())
    rows, failures = [], []
    for kind, count in (("policy", args.policies), ("scenario", args.scenarios)):
        if count < 1:
            continue
        counts, failed = tally(kind, count, not args.no_run, args.seed)
        rows.append((kind, sum(counts.values()), counts[REFUSED], counts[ACCEPTED], counts[FAILED]))
        failures += failed
    print("kind | cases tried | refused cleanly | accepted correctly | failed")
    print("---|---|---|---|---")
    for row in rows:
        print(" | ".join(map(str, row)))
    for line in failures:
        print("FAILED", line[:1500])
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
