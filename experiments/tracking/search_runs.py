"""The MLflow record of a search (design §7).

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
import os
import secrets
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.search.study import Decision
from experiments.stores.creation import log_inputs
from experiments.tracking import records
from experiments.tracking.records import mlflow_client
from experiments.tracking.study_view import DESCRIPTION, SHARED_VIEW, shared_view
from villagelab.safe_text import redact, scrub

if TYPE_CHECKING:
    from harness.agents.registry import AgentChoice
    from policies import Policy
    from scorecards import Comparison, Scorecard, Values

CHAMPION_HELD_MS = 1000  # the longest the parent's champion curve waits to be written

REPAIRED = (
    "its driver was killed after Optuna recorded the trial and before MLflow did: decision, "
    "reason and objective are Optuna's; the scorecard's metrics were not logged"
)


class Tracker:
    def __init__(self, uri: str, study: str, artifacts: Path) -> None:
        self.uri, self.study = uri, study
        self.client = mlflow_client(uri)
        self.experiment_id = records.experiment(
            self.client, study, records.local_artifacts(uri, artifacts), DESCRIPTION, "study"
        )
        records.set_experiment_tags(
            self.client,
            self.client.get_experiment(self.experiment_id),
            {f"mlflow.sharedViewState.{SHARED_VIEW}": shared_view()},
        )
        self.datasets: list[Any] = []  # the selection seeds, as dataset inputs
        self._champion_held: list[Any] = []  # the parent's champion curve, not yet written
        self._artifact_uris: dict[str, str] = {}  # a trial's run → its artifact URI, as created

    # --- runs ----------------------------------------------------------------------------------
    def close_stale(
        self,
        alive: Callable[[str | None], bool],
        told: Callable[[dict[str, str]], dict[str, Any] | None] = lambda tags: None,
    ) -> int:
        """Close the runs left RUNNING by drivers that are gone: as KILLED, but a trial's run
        whose trial Optuna had recorded (`told` gives its decision, reason and objective: the
        driver died between Optuna's tell and MLflow's) as that trial ended, saying so."""
        closed = 0
        for run in self.client.search_runs(
            [self.experiment_id], "attributes.status = 'RUNNING'", max_results=5000
        ):
            if alive(run.data.tags.get("villagelab.driver")):
                continue
            ended = told(run.data.tags) if run.data.tags.get("villagelab.kind") == "trial" else None
            if ended is None:
                self.client.set_terminated(run.info.run_id, "KILLED")
            else:
                for key in ("objective", "violation"):
                    if isinstance(ended.get(key), (int, float)):
                        self.client.log_metric(run.info.run_id, key, float(ended[key]))
                self.client.set_tag(run.info.run_id, "villagelab.repaired", REPAIRED)
                decision = Decision(ended.get("decision", Decision.FAILED))
                reason = str(ended.get("reason", ""))
                self.end_trial(run.info.run_id, decision, reason, "FINISHED")
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
        run_id: str = run.info.run_id
        records.log_params(self.client, run_id, settings)
        # anyone with the UI reads artifacts: a credential in a URI is masked
        self.client.log_text(run_id, scrub(json.dumps(settings, indent=2)), "settings.json")
        self.datasets = [records.seed_set("selection seeds", scenarios, seeds, "selection")]
        log_inputs(self.client, run_id, self.datasets)
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
        traces: str | None = None,
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
        if traces is not None:  # where the workers write its traces (credentials masked)
            tags["villagelab.traces"] = redact(traces)
        name = f"trial {number}" if optuna_study == self.study else f"{optuna_study} #{number}"
        run = self.client.create_run(self.experiment_id, run_name=name, tags=tags)
        run_id: str = run.info.run_id
        self._artifact_uris[run_id] = run.info.artifact_uri
        records.log_params(self.client, run_id, dict(policy.items()))
        if self.datasets:
            log_inputs(self.client, run_id, self.datasets)
        return run_id

    def retries(self, run_id: str, episodes: list[str]) -> None:
        """Episodes Ray ran twice because a worker or node was lost: never silent."""
        self.client.set_tag(run_id, "villagelab.retries", scrub("; ".join(episodes))[:4000])

    def model_usage(self, run_id: str, episodes: list[Any], agent: AgentChoice) -> None:
        """What the agent reports of the episodes a trial ran, pruned or failed ones too (the
        LLM agent: calls, cache hit rate, tokens, estimated cost); nothing for an agent whose
        episodes declared no usage."""
        usages = [getattr(r, "model_usage", None) or {} for r in episodes]
        metrics = agent.usage_metrics(usages)
        if metrics:
            records.log_metrics(self.client, run_id, dict(sorted(metrics.items())))

    def proposer_usage(self, parent: str, usage: dict[str, float], step: int) -> None:
        """The model proposer's calls so far (`--proposer llm`), on the parent run: the same
        counts as an agent's, prefixed `proposer_`."""
        metrics = {f"proposer_{k}": v for k, v in sorted(usage.items())}
        records.log_metrics(self.client, parent, metrics, step=step)

    def finish_trial(
        self,
        run_id: str,
        card: Scorecard,
        decision: Decision,
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
        """A trial's record: its artifacts (files), then one store write of its metrics,
        instance objectives, timing and decision tags together, then its end."""
        numbers = records.scorecard_metrics(card, champion, comparison)
        numbers |= {
            "optuna_value": round(optuna_value, records.DIGITS),
            "violation": round(violation, records.DIGITS),
        }
        rows = [
            {"scenario": sc, "metric": name, "seed": seed, "value": v}
            for sc, per_metric in sorted(values.items())
            for name, per_seed in sorted(per_metric.items())
            for seed, v in sorted(per_seed.items())
        ]
        files: dict[str, Any] = {"scorecard.json": card.to_json(), "policy.yaml": policy.to_yaml()}
        if comparison is not None:
            files["vs_champion.json"] = comparison.to_json()
        self._artifacts(run_id, rows, files)
        measured = _metrics(numbers) + _instances(reported)
        self.end_trial(run_id, decision, reason, "FINISHED", timing, _TABLE_TAG, measured)

    def _artifacts(self, run_id: str, rows: list[dict[str, Any]], files: dict[str, Any]) -> None:
        """The results table and the files, each written as MLflow's `log_table` (orient
        split), `log_dict` (indented JSON) or `log_text` would. Into the run's artifact URI as
        created (no read back of the run: with its metrics, ~5 ms a trial); in a local store
        straight into its folder (no temp copy), each file complete or absent."""
        import pandas as pd

        texts = {
            "results.json": pd.DataFrame(rows).to_json(
                orient="split", index=False, date_format="iso"
            ),
            **{
                name: content
                if isinstance(content, str)
                else json.dumps(content, indent=2, default=str)
                for name, content in files.items()
            },
        }
        uri = self._artifact_uris.pop(run_id, None) or self.client.get_run(run_id).info.artifact_uri
        if urllib.parse.urlsplit(uri).scheme == "file":
            from mlflow.utils.file_utils import local_file_uri_to_path

            _write_files(Path(local_file_uri_to_path(uri)), texts)
            return
        import tempfile

        from mlflow.store.artifact.artifact_repository_registry import get_artifact_repository

        with tempfile.TemporaryDirectory(prefix="villagelab-trial-") as folder:
            _write_files(Path(folder), texts)
            get_artifact_repository(uri, tracking_uri=self.uri).log_artifacts(folder)

    def pruned(
        self,
        run_id: str,
        reason: str,
        reported: list[tuple[int, float]],
        instances: int,
        timing: Callable[[], dict[str, float]] | None = None,
    ) -> None:
        planned: dict[str, float] = {"instances_run": len(reported), "instances_planned": instances}
        measured = _instances(reported) + _metrics(planned)
        self.end_trial(run_id, Decision.PRUNED, reason, "FINISHED", timing, measured=measured)

    def end_trial(
        self,
        run_id: str,
        decision: Decision,
        reason: str,
        status: str,
        timing: Callable[[], dict[str, float]] | None = None,
        tags: dict[str, str] | None = None,
        measured: list[Any] | None = None,
    ) -> None:
        """The decision and its reason, with what was `measured` and the trial's seconds by
        part (`*_seconds`, read now: every store write of the trial but this one and the end
        is in them) in one store write, then the run's end (a write each costs ~5 ms: MLflow
        reads the run back, all its metrics too, before it writes)."""
        tags = {
            **(tags or {}),
            "villagelab.decision": decision,
            "villagelab.reason": scrub(reason)[:4000],
        }
        self._artifact_uris.pop(run_id, None)
        seconds = _metrics(timing()) if timing is not None else []
        records.log_batch(self.client, run_id, [*(measured or ()), *seconds], tags)
        self.client.set_terminated(run_id, status)

    def confirmation(self, run_id: str, scenarios: Sequence[str], seeds: Sequence[int]) -> None:
        """The fresh seeds a promotion was confirmed (or refused) on, as a dataset input."""
        seeds_used = records.seed_set("confirmation seeds", scenarios, seeds, "confirmation")
        log_inputs(self.client, run_id, [seeds_used])

    def log_champion(
        self, run_id: str, policy: Policy, card: Scorecard, reports: tuple[Path, ...]
    ) -> str:
        """The registered version's source: policy, scorecard and report in one folder."""
        self.client.log_text(run_id, policy.to_yaml(), "champion/policy.yaml")
        if not policy.surface.builtin:  # the agent's own parameters, to read the policy back
            self.client.log_dict(run_id, policy.surface.to_json(), "champion/surface.json")
        self.client.log_dict(run_id, card.to_json(), "champion/scorecard.json")
        for path in reports:
            self.client.log_artifact(run_id, str(path), "champion")
        return f"{self.client.get_run(run_id).info.artifact_uri}/champion"

    def parent_of(self, run_id: str) -> str | None:
        parent: str | None = self.client.get_run(run_id).data.tags.get("mlflow.parentRunId")
        return parent

    def champion_step(self, parent: str, objective: float | None, step: int) -> None:
        """The champion's objective after trial `step`, on the parent run: held and written
        together when it changes, once the oldest held point is a second old, and at the
        end — a store write saved on most trials (~5 ms); a driver killed meanwhile loses at
        most a second of the curve, never a trial's record."""
        if objective is None:
            return
        from mlflow.entities import Metric

        now = records.now_ms()
        held = self._champion_held
        changed = bool(held) and held[-1].value != objective
        held.append(Metric("champion_objective", objective, now, step))
        if changed or now - held[0].timestamp >= CHAMPION_HELD_MS:
            self._write_champion(parent)

    def _write_champion(self, parent: str) -> None:
        if self._champion_held:
            records.log_batch(self.client, parent, self._champion_held)
            self._champion_held = []

    def finish(self, parent: str, status: str) -> None:
        self._write_champion(parent)
        self.client.set_terminated(parent, status)


# what MLflow's log_table would tag the run with: the UI's artifact view shows it as a table
_TABLE_TAG = {"mlflow.loggedArtifacts": json.dumps([{"path": "results.json", "type": "table"}])}


def _write_files(folder: Path, texts: dict[str, str]) -> None:
    """Each file whole or not at all (a temp name, then a rename), as MLflow's local
    artifact store would leave it: no fsync, like its own copy."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        tmp = folder / f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, folder / name)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def _metrics(values: dict[str, float]) -> list[Any]:
    from mlflow.entities import Metric

    ts = records.now_ms()
    return [Metric(k, float(v), ts, 0) for k, v in values.items()]


def _instances(reported: list[tuple[int, float]]) -> list[Any]:
    """The instance objectives reported to the pruner, one step each (in the fixed instance
    order): what a pruned trial was stopped on."""
    from mlflow.entities import Metric

    ts = records.now_ms()
    return [
        Metric("instance_objective", round(v, records.DIGITS), ts, step) for step, v in reported
    ]


def _agent_tags(hashes: dict[str, str]) -> dict[str, str]:
    """The agent a study runs (its import path and code hash), when the driver names it, and
    an LLM agent's model and how it asks for JSON (`structured_output`)."""
    keys = ("agent", "agent_hash", "llm_model", "llm_structured_output")
    return {f"villagelab.{k}": hashes[k] for k in keys if k in hashes}
