"""The MLflow record of a search (DESIGN §7).

An experiment per study with its artifact location under the runs folder; a parent run per
invocation (tagged with the driver, and with the parent it resumes); a child run per trial
with the policy values as params, the headline metrics, the per-scenario and per-seed results
as a table artifact, and tags for study, trial, policy, harness, instrument and decision. Runs
a dead driver left RUNNING are closed as KILLED. The tracking URI is always absolute (a stray
./mlruns can never switch stores) and only the driver writes.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")

if TYPE_CHECKING:
    from policies import Policy
    from scorecards import Scorecard, Values

BATCH = 1000  # metrics per log_batch


def _now_ms() -> int:
    return int(time.time() * 1000)


class Tracker:
    def __init__(self, uri: str, study: str, artifacts: Path) -> None:
        from mlflow.tracking import MlflowClient

        for noisy in ("mlflow", "alembic"):  # schema migrations on a fresh store are not news
            logging.getLogger(noisy).setLevel(logging.WARNING)
        self.uri, self.study = uri, study
        self.client = MlflowClient(tracking_uri=uri, registry_uri=uri)
        found = self.client.get_experiment_by_name(study)
        if found is None:
            if uri.startswith(("sqlite:", "file:")) or "://" not in uri:
                artifacts.mkdir(parents=True, exist_ok=True)
                location: str | None = artifacts.resolve().as_uri()
            else:
                location = None  # a tracking server keeps artifacts where it is told to
            self.experiment_id = self._create(study, location)
        else:
            self.experiment_id = found.experiment_id

    def _create(self, study: str, location: str | None) -> str:
        """Create the study's experiment; another driver starting at the same moment may win
        the race (create_experiment is not get-or-create), and then its experiment is ours."""
        from mlflow.exceptions import MlflowException

        try:
            return self.client.create_experiment(study, artifact_location=location)
        except MlflowException as exc:
            if exc.error_code != "RESOURCE_ALREADY_EXISTS":
                raise
            found = self.client.get_experiment_by_name(study)
            if found is None:
                raise
            return found.experiment_id

    # --- runs ----------------------------------------------------------------------------------
    def close_stale(self, alive: Callable[[str | None], bool]) -> int:
        """Close as KILLED the runs left RUNNING by drivers that are gone."""
        closed = 0
        for run in self.client.search_runs([self.experiment_id], "attributes.status = 'RUNNING'",
                                           max_results=5000):
            if not alive(run.data.tags.get("villagelab.driver")):
                self.client.set_terminated(run.info.run_id, "KILLED")
                closed += 1
        return closed

    def start_parent(self, hashes: dict[str, str], driver: str, settings: dict[str, Any]) -> str:
        previous = self.client.search_runs(
            [self.experiment_id], "tags.`villagelab.kind` = 'search'", max_results=1,
            order_by=["attributes.start_time DESC"])
        tags = {"villagelab.study": self.study, "villagelab.kind": "search",
                "villagelab.driver": driver, "villagelab.harness": hashes["harness"],
                "villagelab.instrument": hashes["instrument"]}
        if previous:
            tags["villagelab.resumes"] = previous[0].info.run_id
        run = self.client.create_run(self.experiment_id, run_name=f"search {self.study}",
                                     tags=tags)
        self.client.log_dict(run.info.run_id, settings, "settings.json")
        return run.info.run_id

    def start_trial(self, parent: str, number: int, policy: Policy, hashes: dict[str, str],
                    driver: str, requeued_from: int | None, optuna_study: str) -> str:
        from mlflow.entities import Param

        tags = {"mlflow.parentRunId": parent, "villagelab.study": self.study,
                "villagelab.kind": "trial", "villagelab.trial": str(number),
                "villagelab.policy": policy.hash, "villagelab.harness": hashes["harness"],
                "villagelab.instrument": hashes["instrument"], "villagelab.driver": driver}
        if requeued_from is not None:
            tags["villagelab.requeued_from"] = str(requeued_from)
        if optuna_study != self.study:  # local mode: the champion's sub-study
            tags["villagelab.substudy"] = optuna_study
        name = f"trial {number}" if optuna_study == self.study else f"{optuna_study} #{number}"
        run = self.client.create_run(self.experiment_id, run_name=name, tags=tags)
        self.client.log_batch(run.info.run_id,
                              params=[Param(k, str(v)) for k, v in policy.items()])
        return run.info.run_id

    def retries(self, run_id: str, episodes: list[str]) -> None:
        """Episodes Ray ran twice because a worker or node was lost: never silent."""
        self.client.set_tag(run_id, "villagelab.retries", "; ".join(episodes)[:4000])

    def traces_at(self, run_id: str, location: str) -> None:
        """Where the workers write this trial's traces (a shared URI)."""
        self.client.set_tag(run_id, "villagelab.traces", location)

    def finish_trial(self, run_id: str, card: Scorecard, decision: str, reason: str,
                     values: Values, policy: Policy) -> None:
        import pandas as pd
        from mlflow.entities import Metric

        ts = _now_ms()
        metrics = [Metric(name, m.mean, ts, 0) for name, m in card.metrics.items()]
        metrics += [Metric(f"{sc}/{name}", m.mean, ts, 0)
                    for sc, by_name in card.scenarios.items() for name, m in by_name.items()]
        if card.objective is not None:
            metrics.append(Metric("objective", card.objective, ts, 0))
        for i in range(0, len(metrics), BATCH):
            self.client.log_batch(run_id, metrics=metrics[i:i + BATCH])
        rows = [{"scenario": sc, "metric": name, "seed": seed, "value": v}
                for sc, per_metric in sorted(values.items())
                for name, per_seed in sorted(per_metric.items())
                for seed, v in sorted(per_seed.items())]
        self.client.log_table(run_id, data=pd.DataFrame(rows), artifact_file="results.json")
        self.client.log_dict(run_id, card.to_json(), "scorecard.json")
        self.client.log_text(run_id, policy.to_yaml(), "policy.yaml")
        self.end_trial(run_id, decision, reason, "FINISHED")

    def timing(self, run_id: str, seconds: float, simulation: float) -> None:
        """Where a trial's time went: all of it, and the part spent waiting for episodes."""
        from mlflow.entities import Metric

        ts = _now_ms()
        self.client.log_batch(run_id, metrics=[Metric("trial_seconds", seconds, ts, 0),
                                               Metric("simulation_seconds", simulation, ts, 0)])

    def end_trial(self, run_id: str, decision: str, reason: str, status: str) -> None:
        self.client.set_tag(run_id, "villagelab.decision", decision)
        self.client.set_tag(run_id, "villagelab.reason", reason[:4000])
        self.client.set_terminated(run_id, status)

    def log_champion(self, run_id: str, policy: Policy, card: Scorecard,
                     reports: tuple[Path, ...]) -> str:
        """The registered version's source: policy, scorecard and report in one folder."""
        self.client.log_text(run_id, policy.to_yaml(), "champion/policy.yaml")
        self.client.log_dict(run_id, card.to_json(), "champion/scorecard.json")
        for path in reports:
            self.client.log_artifact(run_id, str(path), "champion")
        return f"{self.client.get_run(run_id).info.artifact_uri}/champion"

    def champion_step(self, parent: str, objective: float | None, step: int) -> None:
        if objective is not None:
            self.client.log_metric(parent, "champion_objective", objective, step=step)

    def finish(self, parent: str, status: str) -> None:
        self.client.set_terminated(parent, status)
