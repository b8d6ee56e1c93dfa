"""When a trial may replace the champion (design §7).

Feasibility comes first (Deb's rules): a candidate that holds every guardrail beats a champion
that breaks one; between two that break guardrails, the smaller violation wins, provided the
candidate breaks no guardrail the champion holds (guardrails are limits, not a currency: a
leak is not paid for by silence); a candidate that breaks a guardrail never replaces one that
holds them all. Between two feasible policies
the candidate must beat the champion on the same seeds by the declared margin, with the paired
interval of the objective difference above zero.

Whatever the objective says, no metric the scorecard holds (`held`: what the objective cannot
weigh) may get worse beyond its tolerance — against the current champion, and against the
study's **anchor** (its start policy), so that a chain of promotions, each inside tolerance of
the last, cannot drift past it in sum. A weighted metric may fall further when the objective
gains more: those are the trades the balanced scorecard exists to weigh (reach against
provenance, spread against containment); the guardrails bound them, the objective must have
gained against the anchor as well as the champion to pay for them, and a promotion's reason
names each one. A reference that breaks a guardrail bought its values by breaking it, so a
candidate is held to the tolerances of feasible references only; when the start policy is
infeasible, the first feasible champion becomes the anchor.

A promotion is then confirmed on fresh confirmation seeds, never used for selection, under the
same rules (guardrails, regressions, drift, objective better by the margin); a candidate that
held every guardrail on the selection seeds must hold them on the fresh ones too.
"""

from __future__ import annotations

import fcntl
import hashlib
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from scorecards import METRICS, Comparison, MetricDiff, Scorecard, ScorecardDefinition, compare


@dataclass(frozen=True)
class Judgement:
    promote: bool
    reason: str
    comparison: Comparison | None = None  # candidate − champion
    anchor: Comparison | None = None  # candidate − the study's anchor (when it was checked)
    held_to: tuple[str, ...] = ()  # whose tolerances were checked: "champion", "anchor"
    held_over: tuple[str, ...] = ()  # whom a held metric fell beyond tolerance against
    traded: tuple[str, ...] = ()  # scenario/metric past tolerance of the champion, not held


def violations(card: Scorecard, definition: ScorecardDefinition) -> dict[str, float]:
    """How far each guardrail is broken (0 when it holds): the excess beyond its limit, as a
    share of the metric's range for a bounded metric, in its own units for a count."""
    out = {}
    for g in definition.guardrails:
        result = card.guardrails.get(g.key)
        if result is None or result.ok or result.value is None:
            out[g.key] = 0.0
            continue
        lo, hi = METRICS[g.metric].range
        span = hi - lo if math.isfinite(hi) else 1.0
        out[g.key] = abs(result.value - result.limit) / span or 1e-9
    return out


def violation(card: Scorecard, definition: ScorecardDefinition) -> float:
    """The total guardrail violation: 0 for a feasible policy."""
    return math.fsum(violations(card, definition).values())


def breaks(card: Scorecard) -> str:
    """The broken guardrails with their values, e.g. 'containment 0.000 < 0.95'."""
    return ", ".join(
        f"{name} {g.value:.3f} {'<' if g.value < g.limit else '>'} {g.limit:g}"
        for name, g in card.guardrails.items()
        if not g.ok and g.value is not None
    )


def held_losses(comparison: Comparison, definition: ScorecardDefinition) -> list[MetricDiff]:
    """The regressions of metrics the scorecard holds to their tolerances."""
    return [r for r in comparison.regressions if definition.holds(r.metric)]


def traded_losses(comparison: Comparison, definition: ScorecardDefinition) -> list[MetricDiff]:
    """The regressions of metrics the scorecard does not hold: the objective trades them."""
    return [r for r in comparison.regressions if not definition.holds(r.metric)]


def _listed(losses: list[MetricDiff]) -> str:
    worst = sorted(losses, key=lambda r: -abs(r.diff.mean) / (r.tolerance or 1.0))[:3]
    listed = ", ".join(
        f"{r.scenario}/{r.metric} {r.diff.mean:+.3f} [{r.diff.ci_low:+.3f}, "
        f"{r.diff.ci_high:+.3f}] (tolerance {r.tolerance:g})"
        for r in worst
    )
    more = len(losses) - len(worst)
    return listed + (f" and {more} more" if more else "")


def unpaid_losses(comparison: Comparison, definition: ScorecardDefinition) -> list[MetricDiff]:
    """The regressions a promotion refuses: a held metric's, and a traded one's when the
    objective did not pay for it (no gain against the same reference)."""
    if comparison.objective_diff.mean > 0:
        return held_losses(comparison, definition)
    return comparison.regressions


def _losses(comparison: Comparison, against: str, definition: ScorecardDefinition) -> str | None:
    losses = unpaid_losses(comparison, definition)
    if not losses:
        return None
    return f"worse than {against} beyond tolerance: {_listed(losses)}"


def _trades(comparison: Comparison, definition: ScorecardDefinition) -> str:
    """'; trading …' when the objective paid for weighted metrics beyond their tolerance."""
    traded = traded_losses(comparison, definition)
    return f"; trading {_listed(traded)}" if traded else ""


def blocked_by_tolerance(
    judged: Judgement, candidate: Scorecard, champion: Scorecard, definition: ScorecardDefinition
) -> tuple[str, ...]:
    """The scenario/metric pairs past their tolerance that refused a trial with a higher
    objective and every guardrail held — the trades the tolerance rule forbids (empty when
    the trial was refused for anything else, or promoted)."""
    if judged.promote or violation(candidate, definition) > 0:
        return ()
    if (candidate.objective or 0.0) <= (champion.objective or 0.0):
        return ()
    checked = []
    if judged.comparison is not None and "champion" in judged.held_to:
        checked.append(judged.comparison)
    if judged.anchor is not None:
        checked.append(judged.anchor)
    return tuple(
        sorted({f"{r.scenario}/{r.metric}" for c in checked for r in unpaid_losses(c, definition)})
    )


def judge(
    candidate: Scorecard,
    champion: Scorecard,
    anchor: Scorecard | None,
    definition: ScorecardDefinition,
    margin: float,
    *,
    confirming: bool = False,
) -> Judgement:
    """Whether `candidate` may replace `champion`, paired on the seeds both were run on.

    `anchor`: the study's anchor on the same seeds (None when it is the champion itself).
    On selection seeds an objective gain needs its paired interval above zero; when
    `confirming` on fresh seeds, a mean gain above the margin confirms it.
    """
    c = compare(candidate, champion, definition, margin=margin, rule="likely")
    a = (
        None
        if anchor is None or violation(anchor, definition) > 0
        else compare(candidate, anchor, definition, margin=margin, rule="likely")
    )
    prefix = "not confirmed on fresh seeds: " if confirming else ""

    mine, theirs = violation(candidate, definition), violation(champion, definition)
    held_to = ("champion",) * (theirs == 0) + ("anchor",) * (a is not None)
    checked = {"champion": c if theirs == 0 else None, "anchor": a}
    held_over = tuple(who for who, cmp in checked.items() if cmp and unpaid_losses(cmp, definition))
    pairs = tuple(f"{r.scenario}/{r.metric}" for r in traded_losses(c, definition))

    def verdict(promote: bool, reason: str) -> Judgement:
        return Judgement(promote, reason, c, a, held_to, held_over, pairs)

    def refuse(reason: str) -> Judgement:
        return verdict(False, prefix + reason)

    if mine > 0 and theirs == 0:
        return refuse(f"guardrail broken: {breaks(candidate)}")
    if mine > 0:
        held = violations(champion, definition)
        newly = [k for k, v in violations(candidate, definition).items() if v > 0 and not held[k]]
        if newly:
            return refuse(
                f"guardrail broken: {breaks(candidate)}, where the champion holds "
                f"{', '.join(newly)}"
            )
    if mine > 0 and mine >= theirs:
        return refuse(
            f"guardrail broken: {breaks(candidate)}, a violation of {mine:.3f}, "
            f"not smaller than the champion's {theirs:.3f}"
        )
    if theirs == 0:  # both feasible: held to the champion's tolerances too
        lost = _losses(c, "the champion", definition)
        if lost:
            return refuse(lost)
    drifted = None if a is None else _losses(a, "the study's anchor", definition)
    if drifted:
        return refuse(drifted)
    d = c.objective_diff
    gain = f"objective {d.mean:+.4f} [{d.ci_low:+.4f}, {d.ci_high:+.4f}]"
    traded = _trades(c, definition)
    confirmed = "confirmed: " if confirming else ""
    if mine > 0:
        return verdict(
            True,
            f"{confirmed}a smaller guardrail violation than the champion's "
            f"({mine:.3f} < {theirs:.3f}); {gain}{traded}",
        )
    if theirs > 0:
        return verdict(
            True,
            f"{confirmed}holds every guardrail, which the champion breaks "
            f"({breaks(champion)}); {gain}{traded}",
        )
    if d.mean <= margin:
        return refuse(f"objective {d.mean:+.4f} not above the margin {margin:g}")
    if not confirming and d.ci_low <= 0:
        return refuse(f"{gain} reaches zero")
    return verdict(True, f"{confirmed}{gain}{traded}")


def on_selection(
    candidate: Scorecard,
    champion: Scorecard,
    definition: ScorecardDefinition,
    margin: float,
    anchor: Scorecard | None = None,
) -> Judgement:
    return judge(candidate, champion, anchor, definition, margin)


def on_confirmation(
    candidate: Scorecard,
    champion: Scorecard,
    definition: ScorecardDefinition,
    margin: float,
    anchor: Scorecard | None = None,
    *,
    held_on_selection: bool = False,
) -> Judgement:
    """The same rules on fresh seeds; and a candidate promoted for holding every guardrail
    must hold them there too (a smaller violation than an infeasible champion's is not the
    claim it was promoted on)."""
    if held_on_selection and violation(candidate, definition) > 0:
        return Judgement(
            False,
            f"not confirmed on fresh seeds: guardrail broken: {breaks(candidate)}, though it "
            "held on the selection seeds",
        )
    return judge(candidate, champion, anchor, definition, margin, confirming=True)


def _seeds(seeds: tuple[int, ...]) -> str:
    contiguous = seeds == tuple(range(seeds[0], seeds[0] + len(seeds)))
    return f"{seeds[0]}-{seeds[-1]}" if contiguous and len(seeds) > 2 else ",".join(map(str, seeds))


def _row(stage: str, seeds: tuple[int, ...], judged: Judgement) -> str:
    c = judged.comparison
    if c is None:
        return f"| {stage} | {_seeds(seeds)} | — | — | — |"
    d = c.objective_diff
    held = "none held" if not judged.held_over else "against the " + " and ".join(judged.held_over)
    checked = (
        f"{held} (against the {' and the '.join(judged.held_to)})"
        if judged.held_to
        else "not checked: no reference holds every guardrail"
    )
    if judged.traded:
        checked += "; traded: " + ", ".join(judged.traded)
    guards = "all hold" if c.guardrails_ok else "broken: " + ", ".join(c.guardrail_breaks)
    return (
        f"| {stage} | {_seeds(seeds)} | {d.mean:+.4f} [{d.ci_low:+.4f}, {d.ci_high:+.4f}] "
        f"| {guards} | {checked} |"
    )


def evidence(
    selection: Judgement,
    confirmation: Judgement,
    *,
    study: str,
    trial: str,
    seeds: tuple[int, ...],
    fresh: tuple[int, ...],
    replaced: int | None,
    links: dict[str, str],
) -> str:
    """A registered version's description: why it was promoted, in numbers (markdown)."""
    return "\n".join(
        [
            f"**Promoted** from trial {trial} of study `{study}`"
            + (f", replacing version {replaced}." if replaced is not None else "."),
            "",
            (
                "| on | seeds | objective − champion, paired (95% CI) | guardrails "
                "| worse beyond tolerance |"
            ),
            "|---|---|---|---|---|",
            _row("selection", seeds, selection),
            _row("confirmation (fresh)", fresh, confirmation),
            "",
            f"Selection: {selection.reason}",
            "",
            f"Confirmation: {confirmation.reason}",
            "",
            f"Runs: [trial {trial}]({links['trial']}) · [its search]({links['search']})",
        ]
    )


def start_evidence(study: str, path: str, card: Scorecard, definition: ScorecardDefinition) -> str:
    """The first champion's description: where it came from and whether it is feasible."""
    feasible = violation(card, definition) == 0
    return (
        f"**The start policy** of study `{study}` ({path}), registered as the first "
        f"champion with objective {card.objective:.4f} on the selection seeds. "
        + (
            "It holds every guardrail."
            if feasible
            else f"It breaks a guardrail ({breaks(card)}): the first candidate that holds them "
            "all and confirms on fresh seeds replaces it."
        )
    )


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
