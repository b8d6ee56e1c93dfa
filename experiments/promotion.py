"""When a trial may replace the champion (DESIGN §7).

On the same selection seeds the candidate must beat the champion by the declared margin with
the paired interval of the objective difference above zero, hold every guardrail, and regress
no metric beyond its tolerance. Then it must confirm on fresh confirmation seeds, never used
for selection: again better by the margin, guardrails held. Otherwise it is rolled back.
"""

from __future__ import annotations

import fcntl
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from scorecards import Comparison, Scorecard, ScorecardDefinition, compare


@dataclass(frozen=True)
class Judgement:
    promote: bool
    reason: str
    comparison: Comparison | None = None


def on_selection(
    candidate: Scorecard, champion: Scorecard, definition: ScorecardDefinition, margin: float
) -> Judgement:
    c = compare(candidate, champion, definition, margin=margin)
    d = c.objective_diff
    if c.guardrail_breaks:
        return Judgement(False, f"guardrail broken: {', '.join(c.guardrail_breaks)}", c)
    if c.regressions:
        worst = ", ".join(f"{r.scenario}/{r.metric}" for r in c.regressions[:3])
        return Judgement(False, f"regresses beyond tolerance: {worst}", c)
    if d.mean <= margin:
        return Judgement(False, f"objective {d.mean:+.4f} not above the margin {margin:g}", c)
    if d.ci_low <= 0:
        return Judgement(
            False,
            f"objective {d.mean:+.4f} but its interval [{d.ci_low:+.4f}, "
            f"{d.ci_high:+.4f}] reaches zero",
            c,
        )
    return Judgement(True, f"objective {d.mean:+.4f} [{d.ci_low:+.4f}, {d.ci_high:+.4f}]", c)


def on_confirmation(
    candidate: Scorecard, champion: Scorecard, definition: ScorecardDefinition, margin: float
) -> Judgement:
    c = compare(candidate, champion, definition, margin=margin)
    if c.guardrail_breaks:
        return Judgement(
            False,
            f"not confirmed: guardrail broken on fresh seeds ({', '.join(c.guardrail_breaks)})",
            c,
        )
    if c.objective_diff.mean <= margin:
        return Judgement(False, f"not confirmed: {c.objective_diff.mean:+.4f} on fresh seeds", c)
    return Judgement(True, f"confirmed: {c.objective_diff.mean:+.4f} on fresh seeds", c)


def confirmation_seeds(start: int, study: str, trial: int, count: int) -> tuple[int, ...]:
    """Fresh seeds for one promotion attempt: a block of the confirmation stream that belongs
    to this (study, trial) alone, so no seed is ever reused or used for selection."""
    slot = int(hashlib.blake2b(study.encode(), digest_size=4).hexdigest(), 16) % 10_000
    base = start + (slot * 1_000_000) + trial * count
    return tuple(range(base, base + count))


@contextmanager
def promotion_lock(storage: str | None, runs_root: Path) -> Iterator[None]:
    """Promotions are serialised across drivers: a PostgreSQL advisory lock when the study
    lives in PostgreSQL, else an exclusive lock on a file in the runs folder."""
    if storage is not None and storage.startswith("postgresql"):
        import sqlalchemy

        engine = sqlalchemy.create_engine(storage)
        with engine.connect() as conn:
            conn.execute(sqlalchemy.text("SELECT pg_advisory_lock(7412)"))
            try:
                yield
            finally:
                conn.execute(sqlalchemy.text("SELECT pg_advisory_unlock(7412)"))
        engine.dispose()
        return
    runs_root.mkdir(parents=True, exist_ok=True)
    with open(runs_root / ".promotion.lock", "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
