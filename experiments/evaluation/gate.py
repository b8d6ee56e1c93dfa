"""The CI gate: run the suite on the gate seeds and compare, paired, with a committed baseline.

Bound to the instrument and the agent: a baseline made with other scenarios, scorecard
definition or seed sets, or with another agent, is incompatible (exit 3) and the message says
which; a different harness — the agent's code included — is exactly what the gate compares,
and is reported, not refused.
"""

from __future__ import annotations

import json
import math
import os
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.evaluation.dispatch import Execution
from experiments.evaluation.evaluate import Evaluation, Instrument, evaluate
from harness.engine.hashing import instrument_parts
from harness.engine.integrity import seal
from policies import InputError, Policy
from scenarios import load_suite
from scorecards import Scorecard
from scorecards.gate import Verdict, junit_xml, markdown_summary, verdict
from villagelab.files import atomic_write_bytes

DEFAULT_BASELINE = Path(__file__).resolve().parents[2] / "scorecards" / "baseline.json"


def default_baseline(suite: str | None) -> Path:
    """The committed baseline of a suite: baseline.json for the main one, baseline_NAME.json
    beside it for another named suite."""
    if suite in (None, "main"):
        return DEFAULT_BASELINE
    return DEFAULT_BASELINE.with_name(f"baseline_{Path(str(suite)).stem}.json")


PASS, REGRESSION, ERROR, INCOMPATIBLE = 0, 1, 2, 3


@dataclass
class GateResult:
    code: int
    message: str
    evaluation: Evaluation
    baseline: Scorecard | None = None
    verdict: Verdict | None = None

    @property
    def comparison(self) -> Any:
        return None if self.verdict is None else self.verdict.comparison

    def to_json(self) -> dict[str, Any]:
        checks = (
            []
            if self.verdict is None
            else [
                {
                    "scenario": c.diff.scenario,
                    "metric": c.diff.metric,
                    "mean": c.diff.diff.mean,
                    "ci_low": c.diff.diff.ci_low,
                    "ci_high": c.diff.diff.ci_high,
                    "tolerance": c.diff.tolerance,
                    "p_value": c.p_value,
                    "failed": c.failed,
                }
                for c in self.verdict.checks
            ]
        )
        return {
            "verdict": {PASS: "pass", REGRESSION: "fail", INCOMPATIBLE: "incompatible"}.get(
                self.code, "error"
            ),
            "exit_code": self.code,
            "message": self.message,
            "candidate": self.evaluation.scorecard.to_json(),
            "baseline_harness": None if self.baseline is None else self.baseline.harness,
            "alpha": None if self.verdict is None else self.verdict.alpha,
            "checks": checks,
            "guardrails": None
            if self.verdict is None
            else {
                k: {"value": g.value, "limit": g.limit, "ok": g.ok}
                for k, g in self.verdict.comparison.guardrails.items()
            },
        }


REFERENCE = "harness.agents.reference:reference_agent"  # baselines from before agents were named


def load_baseline(path: Path) -> tuple[Scorecard, dict[str, str]] | None:
    """The baseline's scorecard and what made it: its instrument's parts. Read before the
    suite runs: a baseline that is unreadable, edited (its `sha256` seal broken) or
    inconsistent (a mean that is not the mean of its seeds) is refused at once (exit 2)."""
    if not path.exists():
        return None
    regenerate = (
        "restore it from version control, or regenerate it with 'villagelab gate --policy P "
        "--update-baseline'"
    )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise TypeError("not a JSON object")
        card = Scorecard.from_json(data)
        parts = dict(data.get("instrument_parts", {}))
    except (OSError, ValueError, TypeError) as exc:
        raise InputError(f"{path}: not a baseline scorecard ({exc}); {regenerate}") from None
    if "sha256" in data and data["sha256"] != seal(data):
        raise InputError(
            f"{path}: edited or damaged since it was written (its sha256 seal does not match "
            f"its content); {regenerate}"
        )
    problem = _inconsistency(card)
    if problem:
        raise InputError(f"{path}: {problem}; {regenerate}")
    return card, parts


def _inconsistency(card: Scorecard) -> str | None:
    """What no scorecard villagelab wrote can hold: a mean that is not its seeds' mean (a
    check for baselines older than the seal)."""
    blocks = [("", card.metrics), *((f"{sc}/", ms) for sc, ms in card.scenarios.items())]
    for prefix, block in blocks:
        for name, m in block.items():
            if m.per_seed and not math.isclose(
                m.mean, statistics.fmean(m.per_seed.values()), rel_tol=1e-9, abs_tol=1e-12
            ):
                return f"{prefix}{name}: mean {m.mean!r} is not the mean of its per-seed values"
    return None


def baseline_agent(path: Path) -> tuple[str, str, dict[str, str]]:
    """The agent a baseline was made with: its import path, code hash and prompt files'
    digests (a baseline from before agents were recorded was made with the reference agent)."""
    data = json.loads(path.read_text())
    return (
        data.get("agent_path", REFERENCE),
        data.get("agent_hash", ""),
        data.get("agent_prompts", {}),
    )


def changed_prompts(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """The prompt variant files added, removed or edited since a baseline: a policy's choice
    of variant then names other words, so the comparison is not of the same policy."""
    return sorted(name for name in before.keys() | now.keys() if before.get(name) != now.get(name))


def write_baseline(path: Path, evaluation: Evaluation) -> None:
    """The baseline: the scorecard plus what is needed to explain a future mismatch."""
    data = {
        **evaluation.scorecard.to_json(),
        "instrument_parts": instrument_parts(),
        "agent": evaluation.agent,
        "agent_path": evaluation.agent_path,
        "agent_hash": evaluation.agent_hash,
        "agent_prompts": evaluation.agent_prompts,
        "policy_values": dict(evaluation.policy),
    }
    data["sha256"] = seal(data)  # a hand edit or a flipped byte is then refused, not compared
    atomic_write_bytes(path, (json.dumps(data, indent=2, allow_nan=False) + "\n").encode())


def run_gate(
    policy: Policy,
    baseline_path: Path,
    execution: Execution,
    *,
    update_baseline: bool = False,
    seeds: tuple[int, ...] | None = None,
    suite_name: str | None = None,
) -> GateResult:
    suite = load_suite(suite_name)
    instrument = Instrument.load(suite.scenarios, suite=suite_name)
    # a damaged baseline is refused before the suite spends its time
    loaded = None if update_baseline else load_baseline(baseline_path)
    evaluation = evaluate(policy, instrument, seeds or suite.seeds.gate, execution)
    card = evaluation.scorecard
    if evaluation.problems:
        failed = ", ".join(f"{r.scenario}/{r.seed}: {r.status}" for r in evaluation.problems)
        return GateResult(ERROR, f"episodes did not finish: {failed}", evaluation)
    if update_baseline:
        write_baseline(baseline_path, evaluation)
        return GateResult(PASS, f"baseline written to {baseline_path}", evaluation)
    if loaded is None:
        return GateResult(
            INCOMPATIBLE,
            f"no baseline at {baseline_path}; make one with "
            "'villagelab gate --policy P --update-baseline'",
            evaluation,
        )
    baseline, parts = loaded
    if baseline.instrument != card.instrument:
        now = instrument_parts()
        differ = [k for k in now if parts.get(k) != now[k]] or ["the instrument"]
        return GateResult(
            INCOMPATIBLE,
            f"the baseline {baseline_path} was made with another instrument "
            f"({baseline.instrument}, this checkout {card.instrument}): "
            f"{', '.join(differ)} differ. Regenerate it with --update-baseline on the "
            "reference policy.",
            evaluation,
            baseline,
        )
    made_with, made_code, made_prompts = baseline_agent(baseline_path)
    if made_with != evaluation.agent_path:
        return GateResult(
            INCOMPATIBLE,
            f"the baseline {baseline_path} was made with another agent ({made_with}; this "
            f"gate runs {evaluation.agent_path}). Gate with that agent (--agent), or make a "
            "baseline for this one with --update-baseline.",
            evaluation,
            baseline,
        )
    edited = changed_prompts(made_prompts, evaluation.agent_prompts)
    if edited:
        return GateResult(
            INCOMPATIBLE,
            f"the agent's prompt files changed since the baseline {baseline_path} was made "
            f"({', '.join(edited)}): the policy's prompt variants now name other words. "
            "Make a new baseline with --update-baseline.",
            evaluation,
            baseline,
        )
    result = verdict(card, baseline, instrument.definition)
    note = (
        "same harness"
        if baseline.harness == card.harness
        else f"harness {baseline.harness} → {card.harness}"
    )
    if made_code and made_code != evaluation.agent_hash:
        note += f", agent code {made_code} → {evaluation.agent_hash}"
    problems = [f"guardrail {name} broken" for name in result.guardrail_breaks]
    problems += [
        f"{c.name} regressed by {c.diff.diff.mean:+.3f} [{c.diff.diff.ci_low:+.3f}, "
        f"{c.diff.diff.ci_high:+.3f}] beyond tolerance {c.diff.tolerance:g}"
        for c in result.regressions
    ]
    if problems:
        return GateResult(
            REGRESSION, f"fail ({note}): " + "; ".join(problems), evaluation, baseline, result
        )
    return GateResult(
        PASS,
        f"pass ({note}): {len(result.checks)} paired checks, no guardrail "
        "broken, no metric beyond tolerance",
        evaluation,
        baseline,
        result,
    )


def write_outputs(
    result: GateResult,
    *,
    json_path: Path | None,
    junit_path: Path | None,
    summary_path: Path | None,
) -> None:
    if json_path is not None:
        atomic_write_bytes(json_path, (json.dumps(result.to_json(), indent=2) + "\n").encode())
    if result.verdict is None:
        return
    note = result.message.split(":", 1)[0]
    if junit_path is not None:
        atomic_write_bytes(junit_path, junit_xml(result.verdict).encode())
    summary = markdown_summary(result.verdict, note)
    if summary_path is not None:
        atomic_write_bytes(summary_path, summary.encode())
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as fh:  # appended, as GitHub expects
            fh.write(summary)


def relabel(card: Scorecard, seeds: dict[int, int]) -> Scorecard:
    """The same scorecard with its seeds renamed: what a randomness-reshuffling refactor
    looks like to a gate that pairs by seed number."""

    def rename(per_seed: dict[str, Any]) -> dict[str, Any]:
        return {str(seeds[int(s)]): v for s, v in per_seed.items()}

    data = card.to_json()
    for block in [data["metrics"], *data["scenarios"].values()]:
        for summary in block.values():
            summary["per_seed"] = rename(summary["per_seed"])
    data["objective_per_seed"] = rename(data["objective_per_seed"])
    return Scorecard.from_json(data)


def aa_check(policy: Policy, repeats: int, execution: Execution) -> tuple[int, int]:
    """(false alarms, repeats): the policy's gate-seed scorecard against itself on disjoint
    seed sets, relabelled to the gate seeds. Nothing changed but randomness."""
    suite = load_suite()
    instrument = Instrument.load(suite.scenarios)
    gate_seeds = suite.seeds.gate
    reference = evaluate(policy, instrument, gate_seeds, execution).scorecard
    taken = set(suite.seeds.selection) | set(gate_seeds) | set(suite.seeds.test)
    fresh = (s for s in range(1000, suite.seeds.confirmation_start) if s not in taken)
    alarms = 0
    for _ in range(repeats):
        seeds = tuple(next(fresh) for _ in gate_seeds)
        card = evaluate(policy, instrument, seeds, execution).scorecard
        result = verdict(
            relabel(card, dict(zip(seeds, gate_seeds))), reference, instrument.definition
        )
        alarms += not result.passed
    return alarms, repeats
