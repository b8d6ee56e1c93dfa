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
import socket
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policies import InputError
from villagelab.safe_text import redact, scrub

if TYPE_CHECKING:
    from policies import Policy
    from scorecards import Scorecard, Values

BATCH = 1000  # metrics per log_batch


def _now_ms() -> int:
    return int(time.time() * 1000)


def mlflow_client(uri: str) -> Any:
    """A client of the tracking store at `uri` (also its model registry). A server that
    cannot be reached stops the command at once with its address, credentials masked: MLflow's
    client would retry for minutes, then fail with the full URI in its message."""
    from mlflow.tracking import MlflowClient

    for noisy in ("mlflow", "alembic"):  # schema migrations on a fresh store are not news
        logging.getLogger(noisy).setLevel(logging.WARNING)
    parts = urllib.parse.urlsplit(uri)
    if parts.scheme in ("http", "https"):
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            socket.create_connection((parts.hostname or "", port), timeout=10).close()
        except (OSError, ValueError) as exc:
            raise InputError(
                f"cannot reach the MLflow tracking server at {redact(uri)} "
                f"({getattr(exc, 'strerror', None) or exc}); start it, or leave "
                "out --tracking-uri to use the runs folder's own store"
            ) from None
    return MlflowClient(tracking_uri=uri, registry_uri=uri)


class Tracker:
    def __init__(self, uri: str, study: str, artifacts: Path) -> None:
        self.uri, self.study = uri, study
        self.client = mlflow_client(uri)
        found = self.client.get_experiment_by_name(study)
        if found is None:
            if uri.startswith(("sqlite:", "file:")) or "://" not in uri:
                artifacts.mkdir(parents=True, exist_ok=True)
                location: str | None = artifacts.resolve().as_uri()
            else:
                location = None  # a tracking server keeps artifacts where it is told to
            self.experiment_id = self._create_experiment(location)
        else:
            self.experiment_id = found.experiment_id

    def _create_experiment(self, location: str | None) -> str:
        """Get-or-create: two drivers starting the same study at once both ask; the one that
        loses the race reads the winner's experiment (create_experiment is not idempotent)."""
        from mlflow.exceptions import MlflowException

        try:
            return str(self.client.create_experiment(self.study, artifact_location=location))
        except MlflowException as exc:
            found = self.client.get_experiment_by_name(self.study)
            if exc.error_code != "RESOURCE_ALREADY_EXISTS" or found is None:
                raise
            return str(found.experiment_id)

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

    def start_parent(self, hashes: dict[str, str], driver: str, settings: dict[str, Any]) -> str:
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
        run = self.client.create_run(self.experiment_id, run_name=f"search {self.study}", tags=tags)
        self.client.log_dict(run.info.run_id, settings, "settings.json")
        return run.info.run_id

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
        from mlflow.entities import Param

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
        self.client.log_batch(run.info.run_id, params=[Param(k, str(v)) for k, v in policy.items()])
        return run.info.run_id

    def retries(self, run_id: str, episodes: list[str]) -> None:
        """Episodes Ray ran twice because a worker or node was lost: never silent."""
        self.client.set_tag(run_id, "villagelab.retries", scrub("; ".join(episodes))[:4000])

    def model_usage(self, run_id: str, metrics: dict[str, float]) -> None:
        """An LLM agent's calls in this trial (calls, cache hit rate, tokens, estimated cost);
        nothing for an agent that calls no model."""
        from mlflow.entities import Metric

        if metrics:
            ts = _now_ms()
            batch = [Metric(k, float(v), ts, 0) for k, v in sorted(metrics.items())]
            self.client.log_batch(run_id, metrics=batch)

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
    ) -> None:
        import pandas as pd
        from mlflow.entities import Metric

        ts = _now_ms()
        metrics = [Metric(name, m.mean, ts, 0) for name, m in card.metrics.items()]
        metrics += [
            Metric(f"{sc}/{name}", m.mean, ts, 0)
            for sc, by_name in card.scenarios.items()
            for name, m in by_name.items()
        ]
        if card.objective is not None:
            metrics.append(Metric("objective", card.objective, ts, 0))
        for i in range(0, len(metrics), BATCH):
            self.client.log_batch(run_id, metrics=metrics[i : i + BATCH])
        rows = [
            {"scenario": sc, "metric": name, "seed": seed, "value": v}
            for sc, per_metric in sorted(values.items())
            for name, per_seed in sorted(per_metric.items())
            for seed, v in sorted(per_seed.items())
        ]
        self.client.log_table(run_id, data=pd.DataFrame(rows), artifact_file="results.json")
        self.client.log_dict(run_id, card.to_json(), "scorecard.json")
        self.client.log_text(run_id, policy.to_yaml(), "policy.yaml")
        self.end_trial(run_id, decision, reason, "FINISHED")

    def timing(self, run_id: str, seconds: float, simulation: float) -> None:
        """Where a trial's time went: all of it, and the part spent waiting for episodes."""
        from mlflow.entities import Metric

        ts = _now_ms()
        self.client.log_batch(
            run_id,
            metrics=[
                Metric("trial_seconds", seconds, ts, 0),
                Metric("simulation_seconds", simulation, ts, 0),
            ],
        )

    def end_trial(self, run_id: str, decision: str, reason: str, status: str) -> None:
        self.client.set_tag(run_id, "villagelab.decision", decision)
        self.client.set_tag(run_id, "villagelab.reason", scrub(reason)[:4000])
        self.client.set_terminated(run_id, status)

    def log_champion(
        self, run_id: str, policy: Policy, card: Scorecard, reports: tuple[Path, ...]
    ) -> str:
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


def _agent_tags(hashes: dict[str, str]) -> dict[str, str]:
    """The agent a study runs (its import path and code hash), when the driver names it."""
    return {f"villagelab.{k}": hashes[k] for k in ("agent", "agent_hash") if k in hashes}
