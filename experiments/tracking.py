"""The MLflow record of a search (DESIGN §7).

An experiment per study (described, its artifact location under the runs folder, and a
shared view of its trials that `villagelab ui` opens); a parent run per invocation named
`<study> <date time>`, with the search settings as params and the selection seeds as a
dataset input (tagged with the driver, and with the parent it resumes); a child run per
trial with the policy values as params, every metric's mean and interval with the
champion's beside them (`records.scorecard_metrics`), the instance objectives the pruner
saw, the per-scenario and per-seed results as a table artifact, and tags for study, trial,
policy, harness, instrument, decision and reason. Runs a dead driver left RUNNING are closed
as KILLED. The tracking URI is always absolute (a stray ./mlruns can never switch stores)
and only the driver writes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from villagelab.safe_text import redact, scrub

from . import records
from .records import mlflow_client

if TYPE_CHECKING:
    from policies import Policy
    from scorecards import Comparison, Scorecard, Values

SHARED_VIEW = "villagelab"  # the key of the study's shared runs view (see `shared_view`)

DESCRIPTION = """\
A villagelab search study: one **parent run** per invocation of `villagelab search`
(named `<study> <date time>`, the settings as params, the champion's objective per step) and
one **child run** per trial: the policy as params; tags `villagelab.decision`
(promoted / rolled_back / pruned / failed) and `villagelab.reason`.

Metrics of a trial, on the selection seeds: `objective` and each metric `m` overall and
`scenario/m` per scenario, as the mean over seeds with its 95% interval (`.ci_low`,
`.ci_high`); beside each, the champion's value on the same seeds (`.champion`, with its
interval) and, per scenario, the paired difference (`.vs_champion`). `optuna_value` is what
Optuna ranks by: the objective when every guardrail holds, else minus the total
`violation`. `instance_objective` (by step) is what the pruner saw. Values are rounded to 4
decimals; the exact numbers are in each run's `scorecard.json`.

The champion is the registered model `villagelab-policy` with the alias `champion`: each
version's description holds its promotion evidence. `villagelab ui` opens the trials sorted
by `optuna_value` (a shared view; "Exit shared view" shows every run)."""

COLUMNS = [  # the shared view's columns, in order: decision first, then what it rests on
    "attributes.`Dataset`",
    "tags.`villagelab.decision`",
    "metrics.`optuna_value`",
    "metrics.`objective`",
    "metrics.`objective.ci_low`",
    "metrics.`objective.ci_high`",
    "metrics.`objective.champion`",
    "metrics.`objective.vs_champion`",
    "metrics.`violation`",
    "metrics.`containment`",
    "metrics.`reach`",
    "metrics.`provenance`",
    "metrics.`action_consistency`",
    "metrics.`false_certainty_rate`",
    "tags.`villagelab.reason`",
]


def shared_view() -> str:
    """The runs table a user should land on: the trials, best first, with the columns that
    explain each decision (MLflow's "shared view" state, stored as an experiment tag)."""
    return json.dumps(
        {
            "searchFilter": "tags.`villagelab.kind` = 'trial'",
            "orderByKey": "metrics.`optuna_value`",
            "orderByAsc": False,
            "selectedColumns": COLUMNS,
            "columnOrder": COLUMNS,
            "runsHiddenMode": "SHOW_ALL",
            "columnWidths": {"tags.`villagelab.decision`": 120, "tags.`villagelab.reason`": 600},
        }
    )


def runs_view_path(experiment_id: str) -> str:
    """The UI route of a study's runs view (MLflow 3 otherwise opens on GenAI traces)."""
    return (
        f"#/experiments/{experiment_id}/runs?workflowType=machine_learning"
        f"&viewStateShareKey={SHARED_VIEW}"
    )


def run_path(experiment_id: str, run_id: str) -> str:
    return f"#/experiments/{experiment_id}/runs/{run_id}"


class Tracker:
    def __init__(self, uri: str, study: str, artifacts: Path) -> None:
        self.uri, self.study = uri, study
        self.client = mlflow_client(uri)
        self.experiment_id = records.experiment(
            self.client, study, records.local_artifacts(uri, artifacts), DESCRIPTION, "study"
        )
        tag = f"mlflow.sharedViewState.{SHARED_VIEW}"
        view = shared_view()
        if self.client.get_experiment(self.experiment_id).tags.get(tag) != view:
            self.client.set_experiment_tag(self.experiment_id, tag, view)
        self.datasets: list[Any] = []  # the selection seeds, as dataset inputs

    # --- runs ----------------------------------------------------------------------------------
    def close_stale(self, alive: Callable[[str | None], bool]) -> int:
        """Close as KILLED the runs left RUNNING by drivers that are gone."""
        closed = 0
        for run in self.client.search_runs(
            [self.experiment_id], "attributes.status = 'RUNNING'", max_results=5000
        ):
            if not alive(run.data.tags.get("villagelab.driver")):
                self.client.set_terminated(run.info.run_id, "KILLED")
                closed += 1
        return closed

    def start_parent(
        self,
        hashes: dict[str, str],
        driver: str,
        settings: dict[str, Any],
        scenarios: Sequence[str],
        seeds: Sequence[int],
    ) -> str:
        previous = self.client.search_runs(
            [self.experiment_id],
            "tags.`villagelab.kind` = 'search'",
            max_results=1,
            order_by=["attributes.start_time DESC"],
        )
        tags = {
            "villagelab.study": self.study,
            "villagelab.kind": "search",
            "villagelab.driver": driver,
            "villagelab.harness": hashes["harness"],
            "villagelab.instrument": hashes["instrument"],
            **_agent_tags(hashes),
        }
        if previous:
            tags["villagelab.resumes"] = previous[0].info.run_id
        run = self.client.create_run(
            self.experiment_id, run_name=f"{self.study} {records.stamp()}", tags=tags
        )
        run_id = run.info.run_id
        records.log_params(self.client, run_id, settings)
        # anyone with the UI reads artifacts: a credential in a URI is masked
        self.client.log_text(run_id, scrub(json.dumps(settings, indent=2)), "settings.json")
        self.datasets = [records.seed_set("selection seeds", scenarios, seeds, "selection")]
        self.client.log_inputs(run_id, datasets=self.datasets)
        return run_id

    def start_trial(
        self,
        parent: str,
        number: int,
        policy: Policy,
        hashes: dict[str, str],
        driver: str,
        requeued_from: int | None,
        optuna_study: str,
    ) -> str:
        tags = {
            "mlflow.parentRunId": parent,
            "villagelab.study": self.study,
            "villagelab.kind": "trial",
            "villagelab.trial": str(number),
            "villagelab.policy": policy.hash,
            "villagelab.harness": hashes["harness"],
            "villagelab.instrument": hashes["instrument"],
            "villagelab.driver": driver,
            **_agent_tags(hashes),
        }
        if requeued_from is not None:
            tags["villagelab.requeued_from"] = str(requeued_from)
        if optuna_study != self.study:  # local mode: the champion's sub-study
            tags["villagelab.substudy"] = optuna_study
        name = f"trial {number}" if optuna_study == self.study else f"{optuna_study} #{number}"
        run = self.client.create_run(self.experiment_id, run_name=name, tags=tags)
        records.log_params(self.client, run.info.run_id, dict(policy.items()))
        if self.datasets:
            self.client.log_inputs(run.info.run_id, datasets=self.datasets)
        return run.info.run_id

    def retries(self, run_id: str, episodes: list[str]) -> None:
        """Episodes Ray ran twice because a worker or node was lost: never silent."""
        self.client.set_tag(run_id, "villagelab.retries", scrub("; ".join(episodes))[:4000])

    def model_usage(self, run_id: str, episodes: list[Any], agent_options: str | None) -> None:
        """An LLM agent's calls in the episodes a trial ran, pruned or failed ones too (calls,
        cache hit rate, tokens, estimated cost); nothing for an agent that calls no model."""
        from harness.agents.llm import model_metrics

        metrics = model_metrics(episodes, agent_options)
        if metrics:
            records.log_metrics(self.client, run_id, dict(sorted(metrics.items())))

    def traces_at(self, run_id: str, location: str) -> None:
        """Where the workers write this trial's traces (a shared URI, credentials masked:
        anyone with the UI reads tags)."""
        self.client.set_tag(run_id, "villagelab.traces", redact(location))

    def finish_trial(
        self,
        run_id: str,
        card: Scorecard,
        decision: str,
        reason: str,
        values: Values,
        policy: Policy,
        *,
        champion: Scorecard,
        comparison: Comparison | None,
        reported: list[tuple[int, float]],
        optuna_value: float,
        violation: float,
        timing: Callable[[], dict[str, float]] | None = None,
    ) -> None:
        import pandas as pd

        numbers = records.scorecard_metrics(card, champion, comparison)
        numbers |= {
            "optuna_value": round(optuna_value, records.DIGITS),
            "violation": round(violation, records.DIGITS),
        }
        records.log_metrics(self.client, run_id, numbers)
        self.instances(run_id, reported)
        rows = [
            {"scenario": sc, "metric": name, "seed": seed, "value": v}
            for sc, per_metric in sorted(values.items())
            for name, per_seed in sorted(per_metric.items())
            for seed, v in sorted(per_seed.items())
        ]
        self.client.log_table(run_id, data=pd.DataFrame(rows), artifact_file="results.json")
        self.client.log_dict(run_id, card.to_json(), "scorecard.json")
        if comparison is not None:
            self.client.log_dict(run_id, comparison.to_json(), "vs_champion.json")
        self.client.log_text(run_id, policy.to_yaml(), "policy.yaml")
        if timing is not None:
            self.timing(run_id, timing)
        self.end_trial(run_id, decision, reason, "FINISHED")

    def instances(self, run_id: str, reported: list[tuple[int, float]]) -> None:
        """The instance objectives reported to the pruner, one step each (in the fixed
        instance order): what a pruned trial was stopped on."""
        from mlflow.entities import Metric

        ts = records.now_ms()
        metrics = [
            Metric("instance_objective", round(v, records.DIGITS), ts, step) for step, v in reported
        ]
        for i in range(0, len(metrics), records.BATCH):
            self.client.log_batch(run_id, metrics=metrics[i : i + records.BATCH])

    def pruned(
        self,
        run_id: str,
        reason: str,
        reported: list[tuple[int, float]],
        instances: int,
        timing: Callable[[], dict[str, float]] | None = None,
    ) -> None:
        self.instances(run_id, reported)
        records.log_metrics(
            self.client, run_id, {"instances_run": len(reported), "instances_planned": instances}
        )
        if timing is not None:
            self.timing(run_id, timing)
        self.end_trial(run_id, "pruned", reason, "FINISHED")

    def timing(self, run_id: str, seconds: Callable[[], dict[str, float]]) -> None:
        """Where a trial's time went, by part (`*_seconds` metrics), read as it is logged."""
        records.log_metrics(self.client, run_id, seconds())

    def end_trial(self, run_id: str, decision: str, reason: str, status: str) -> None:
        self.client.set_tag(run_id, "villagelab.decision", decision)
        self.client.set_tag(run_id, "villagelab.reason", scrub(reason)[:4000])
        self.client.set_terminated(run_id, status)

    def confirmation(self, run_id: str, scenarios: Sequence[str], seeds: Sequence[int]) -> None:
        """The fresh seeds a promotion was confirmed (or refused) on, as a dataset input."""
        self.client.log_inputs(
            run_id,
            datasets=[records.seed_set("confirmation seeds", scenarios, seeds, "confirmation")],
        )

    def log_champion(
        self, run_id: str, policy: Policy, card: Scorecard, reports: tuple[Path, ...]
    ) -> str:
        """The registered version's source: policy, scorecard and report in one folder."""
        self.client.log_text(run_id, policy.to_yaml(), "champion/policy.yaml")
        self.client.log_dict(run_id, card.to_json(), "champion/scorecard.json")
        for path in reports:
            self.client.log_artifact(run_id, str(path), "champion")
        return f"{self.client.get_run(run_id).info.artifact_uri}/champion"

    def parent_of(self, run_id: str) -> str | None:
        return self.client.get_run(run_id).data.tags.get("mlflow.parentRunId")

    def champion_step(self, parent: str, objective: float | None, step: int) -> None:
        if objective is not None:
            self.client.log_metric(parent, "champion_objective", objective, step=step)

    def finish(self, parent: str, status: str) -> None:
        self.client.set_terminated(parent, status)


def _agent_tags(hashes: dict[str, str]) -> dict[str, str]:
    """The agent a study runs (its import path and code hash), when the driver names it."""
    return {f"villagelab.{k}": hashes[k] for k in ("agent", "agent_hash") if k in hashes}
