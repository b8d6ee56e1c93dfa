"""The CI gate: run the suite on the gate seeds and compare, paired, with a committed baseline.

Bound to the instrument only: a baseline made with other scenarios, scorecard definition or
seed sets is incompatible (exit 3); a different harness is exactly what the gate compares.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from policies import InputError, Policy
from scenarios import load_suite
from scorecards import Comparison, Scorecard, compare

from .evaluation import Evaluation, Execution, Instrument, evaluate

DEFAULT_BASELINE = Path(__file__).resolve().parent.parent / "scorecards" / "baseline.json"

PASS, REGRESSION, ERROR, INCOMPATIBLE = 0, 1, 2, 3


@dataclass
class GateResult:
    code: int
    message: str
    evaluation: Evaluation
    baseline: Scorecard | None = None
    comparison: Comparison | None = None

    def to_json(self) -> dict:
        return {
            "verdict": {PASS: "pass", REGRESSION: "fail", INCOMPATIBLE: "incompatible"}.get(
                self.code, "error"),
            "exit_code": self.code,
            "message": self.message,
            "candidate": self.evaluation.scorecard.to_json(),
            "baseline_harness": None if self.baseline is None else self.baseline.harness,
            "comparison": None if self.comparison is None else self.comparison.to_json(),
        }


def load_baseline(path: Path) -> Scorecard | None:
    if not path.exists():
        return None
    try:
        return Scorecard.from_json(json.loads(path.read_text()))
    except (ValueError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a baseline scorecard ({exc})") from None


def run_gate(policy: Policy, baseline_path: Path, execution: Execution, *,
             update_baseline: bool = False) -> GateResult:
    suite = load_suite()
    instrument = Instrument.load(suite.scenarios)
    evaluation = evaluate(policy, instrument, suite.seeds.gate, execution)
    card = evaluation.scorecard
    if evaluation.problems:
        failed = ", ".join(f"{r.scenario}/{r.seed}: {r.status}" for r in evaluation.problems)
        return GateResult(ERROR, f"episodes did not finish: {failed}", evaluation)
    if update_baseline:
        card.write_json(baseline_path)
        return GateResult(PASS, f"baseline written to {baseline_path}", evaluation)
    baseline = load_baseline(baseline_path)
    if baseline is None:
        return GateResult(INCOMPATIBLE, f"no baseline at {baseline_path}; make one with "
                          "'villagelab gate --policy P --update-baseline'", evaluation)
    if baseline.instrument != card.instrument:
        return GateResult(
            INCOMPATIBLE,
            f"the baseline {baseline_path} was made with instrument {baseline.instrument}, "
            f"this checkout's is {card.instrument}: the scenarios, the scorecard definition or "
            "the seed sets differ. Regenerate the baseline with --update-baseline on the "
            "reference policy.", evaluation, baseline)
    comparison = compare(card, baseline, instrument.definition)
    problems = [f"guardrail {name} broken" for name in comparison.guardrail_breaks]
    problems += [f"{d.scenario}/{d.metric} regressed by {d.diff.mean:+.3f} "
                 f"[{d.diff.ci_low:+.3f}, {d.diff.ci_high:+.3f}] beyond tolerance "
                 f"{d.tolerance:g}" for d in comparison.regressions]
    harness_note = ("same harness" if baseline.harness == card.harness else
                    f"harness {baseline.harness} → {card.harness}")
    if problems:
        return GateResult(REGRESSION, f"fail ({harness_note}): " + "; ".join(problems),
                          evaluation, baseline, comparison)
    return GateResult(PASS, f"pass ({harness_note}): no guardrail broken, no metric beyond "
                      "tolerance", evaluation, baseline, comparison)
