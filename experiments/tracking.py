"""The MLflow record of a search: an experiment per study, a parent run per invocation, a child
run per trial with the policy as params, the headline metrics and the decision as tags.

Only the driver writes here (SQLite dislikes concurrent writers). The tracking URI is always
absolute and every experiment gets an explicit artifact location under the runs folder, so a
stray ./mlruns can never switch stores (STACK.md).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")

if TYPE_CHECKING:
    from policies import Policy

    from .evaluation import Evaluation


def _now_ms() -> int:
    return int(time.time() * 1000)


class Tracker:
    def __init__(self, uri: str, study: str, artifacts: Path) -> None:
        from mlflow.tracking import MlflowClient

        for noisy in ("mlflow", "alembic"):  # schema migrations on a fresh store are not news
            logging.getLogger(noisy).setLevel(logging.WARNING)
        self.uri, self.study = uri, study
        self.client = MlflowClient(tracking_uri=uri)
        found = self.client.get_experiment_by_name(study)
        if found is None:
            artifacts.mkdir(parents=True, exist_ok=True)
            self.experiment_id = self.client.create_experiment(
                study, artifact_location=artifacts.resolve().as_uri())
        else:
            self.experiment_id = found.experiment_id

    def start_parent(self, hashes: dict[str, str], settings: dict[str, Any]) -> str:
        run = self.client.create_run(
            self.experiment_id, run_name=f"search {self.study}",
            tags={"villagelab.study": self.study, "villagelab.kind": "search",
                  "villagelab.harness": hashes["harness"],
                  "villagelab.instrument": hashes["instrument"]})
        self.client.log_dict(run.info.run_id, settings, "settings.json")
        return run.info.run_id

    def log_trial(self, parent: str, number: int, policy: Policy, evaluation: Evaluation,
                  decision: str, hashes: dict[str, str], champion_objective: float | None,
                  reports: tuple[Path, ...] = ()) -> str:
        from mlflow.entities import Metric, Param, RunTag

        tags = {"mlflow.parentRunId": parent, "villagelab.study": self.study,
                "villagelab.trial": str(number), "villagelab.policy": policy.hash,
                "villagelab.harness": hashes["harness"],
                "villagelab.instrument": hashes["instrument"],
                "villagelab.decision": decision}
        run = self.client.create_run(self.experiment_id, run_name=f"trial {number}", tags=tags)
        card, ts = evaluation.scorecard, _now_ms()
        metrics = [Metric(name, summary.mean, ts, 0) for name, summary in card.metrics.items()]
        metrics += [Metric(f"{scenario}/{name}", summary.mean, ts, 0)
                    for scenario, by_name in card.scenarios.items()
                    for name, summary in by_name.items()]
        if card.objective is not None:
            metrics.append(Metric("objective", card.objective, ts, 0))
        self.client.log_batch(run.info.run_id, metrics=metrics[:1000],
                              params=[Param(k, str(v)) for k, v in policy.items()])
        self.client.log_dict(run.info.run_id, card.to_json(), "scorecard.json")
        self.client.log_text(run.info.run_id, policy.to_yaml(), "policy.yaml")
        for path in reports:
            self.client.log_artifact(run.info.run_id, str(path), "reports")
        self.client.set_terminated(run.info.run_id, "FINISHED")
        if champion_objective is not None:
            self.client.log_batch(parent, metrics=[
                Metric("champion_objective", champion_objective, ts, number)])
        return run.info.run_id

    def finish(self, parent: str, status: str, champion: Any = None) -> None:
        if champion is not None:
            self.client.log_dict(parent, champion.to_json(), "champion.json")
            self.client.log_text(parent, champion.policy.to_yaml(), "champion.yaml")
        self.client.set_terminated(parent, status)
