"""MLflow runs for the one-off commands: `gate`, `run --mlflow`, `sweep --mlflow`.

Each lands in its own experiment of the same store a search uses (`villagelab-gate`,
`villagelab-run`, `villagelab-sweep`), beside the studies, with the scorecard's numbers as
metrics (the gate's baseline beside them), the seeds as a dataset input, and the scorecard
and reports as artifacts — so a gate, a run and a search's trials can be compared in one UI.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.tracking import records

if TYPE_CHECKING:
    from experiments.evaluation.evaluate import Evaluation
    from experiments.evaluation.gate import GateResult

GATE = "villagelab-gate"
RUN = "villagelab-run"
SWEEP = "villagelab-sweep"

DESCRIPTIONS = {
    GATE: "`villagelab gate` runs: a policy on the gate seeds compared, paired, with the "
    "committed baseline (`.baseline` and `.vs_baseline` beside each metric). Tags "
    "`villagelab.verdict` and `villagelab.message`; artifacts: scorecard, gate.json, "
    "JUnit XML, summary and the report.",
    RUN: "`villagelab run --mlflow` runs: one policy on the given scenarios and seeds; the "
    "scorecard's metrics with their 95% intervals, the manifest, scorecard and report.",
    SWEEP: "`villagelab sweep --mlflow`: a parent run per sweep (the parameter and its "
    "values), a child run per value with that value's scorecard and report.",
}


def _names(evaluation: Evaluation) -> list[str]:
    return sorted({r.scenario for r in evaluation.records})


def context(policy: str, evaluation: Evaluation, **more: str) -> dict[str, str]:
    """What a report was made of: the policy file, scenarios, seeds, agent and date."""
    seeds = evaluation.seeds
    return {
        "policy file": policy,
        "scenarios": ", ".join(_names(evaluation)),
        "seeds": ", ".join(map(str, seeds)),
        "agent": evaluation.agent,
        **more,
        "date": records.stamp(),
    }


def failures(result: GateResult) -> set[tuple[str, str]]:
    """The (scenario, metric) pairs the gate's verdict calls regressions."""
    if result.verdict is None:
        return set()
    return {(c.diff.scenario, c.diff.metric) for c in result.verdict.regressions}


def gate_context(result: GateResult, policy: str, baseline: Path) -> dict[str, str]:
    return context(
        policy, result.evaluation, baseline=str(baseline), verdict=result.message.split(":", 1)[0]
    )


def _reports(
    evaluation: Evaluation,
    folder: Path,
    title: str,
    info: dict[str, str],
    comparison: Any = None,
    failed: set[tuple[str, str]] | None = None,
) -> list[Path]:
    from scorecards.report import write_reports

    md, html = write_reports(
        evaluation.scorecard,
        evaluation.load_traces(),
        folder,
        comparison=comparison,
        title=title,
        context=info,
        failed=failed,
    )
    return [md, html]


def log_gate(
    uri: str,
    artifacts: Path,
    result: GateResult,
    policy: str,
    baseline: Path,
    files: Sequence[Path],
) -> str:
    """The gate's run; returns where to find it."""
    evaluation = result.evaluation
    verdict = {0: "pass", 1: "fail", 3: "incompatible"}.get(result.code, "error")
    seeds = evaluation.seeds
    with tempfile.TemporaryDirectory() as tmp:
        reports = list(files) or _reports(
            evaluation,
            Path(tmp),
            f"villagelab gate: {policy}",
            gate_context(result, policy, baseline),
            result.comparison,
            failures(result),
        )
        experiment_id, run_id = records.log_evaluation(
            uri,
            GATE,
            "gate",
            DESCRIPTIONS[GATE],
            f"gate {Path(policy).stem if policy != 'champion' else policy} {records.stamp()}",
            {
                "policy": policy,
                "baseline": str(baseline),
                "seeds": list(seeds),
                "scenarios": _names(evaluation),
                "agent": evaluation.agent,
                "exit_code": result.code,
            },
            evaluation.scorecard,
            reports,
            datasets=[records.seed_set("gate seeds", _names(evaluation), seeds, "gate")],
            tags={"villagelab.verdict": verdict, "villagelab.message": result.message[:4000]},
            artifacts_root=artifacts / GATE,
            status="FINISHED" if result.code in (0, 1) else "FAILED",
            reference=result.baseline,
            comparison=result.comparison,
            label="baseline",
        )
    return records.run_address(uri, experiment_id, run_id)


def log_run(
    uri: str,
    artifacts: Path,
    evaluation: Evaluation,
    policy_file: Path,
    out: Path,
    files: Sequence[Path],
) -> str:
    seeds = evaluation.seeds
    with tempfile.TemporaryDirectory() as tmp:
        reports = list(files) or _reports(
            evaluation,
            Path(tmp),
            f"villagelab run: {policy_file}",
            context(str(policy_file), evaluation),
        )
        manifest = out / "manifest.json"
        experiment_id, run_id = records.log_evaluation(
            uri,
            RUN,
            "run",
            DESCRIPTIONS[RUN],
            f"run {policy_file.stem} {records.stamp()}",
            {
                "policy_file": str(policy_file),
                "scenarios": _names(evaluation),
                "seeds": list(seeds),
                "agent": evaluation.agent,
                **evaluation.model,
                "out": str(out),
                "traces_uri": evaluation.traces_uri,
            },
            evaluation.scorecard,
            [*reports, *([manifest] if manifest.exists() else [])],
            datasets=[records.seed_set("run seeds", _names(evaluation), seeds, "run")],
            artifacts_root=artifacts / RUN,
            status="FINISHED" if not evaluation.problems else "FAILED",
        )
    return records.run_address(uri, experiment_id, run_id)


class SweepLog:
    """A sweep's parent run, and a child run per value as it is evaluated."""

    def __init__(
        self, uri: str, artifacts: Path, name: str, values: Sequence[object], base: str
    ) -> None:
        self.uri, self.artifacts, self.name, self.base = uri, artifacts, name, base
        self.parent = records.start_group(
            uri,
            SWEEP,
            "sweep",
            DESCRIPTIONS[SWEEP],
            f"sweep {name} {records.stamp()}",
            {"parameter": name, "values": list(values), "policy": base},
            artifacts_root=artifacts / SWEEP,
        )

    def point(self, value: object, evaluation: Evaluation) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            reports = _reports(
                evaluation,
                Path(tmp),
                f"sweep {self.name} = {value}",
                context(self.base, evaluation, swept=f"{self.name} = {value}"),
            )
            records.log_evaluation(
                self.uri,
                SWEEP,
                "sweep",
                DESCRIPTIONS[SWEEP],
                f"{self.name}={value}",
                {
                    self.name: value,
                    "policy": self.base,
                    "scenarios": _names(evaluation),
                    "seeds": list(evaluation.seeds),
                },
                evaluation.scorecard,
                reports,
                datasets=[
                    records.seed_set("sweep seeds", _names(evaluation), evaluation.seeds, "sweep")
                ],
                artifacts_root=self.artifacts / SWEEP,
                parent=self.parent,
            )

    def finish(self, status: str = "FINISHED") -> str:
        records.end_group(self.uri, self.parent, status)
        run = records.mlflow_client(self.uri).get_run(self.parent)
        return records.run_address(self.uri, run.info.experiment_id, self.parent)
