"""What a scorecard looks like in MLflow: metric keys a person can compare in the runs table,
seed sets as dataset inputs, and one-off runs for `gate`, `run --mlflow` and `sweep --mlflow`.

Metric keys, for a metric `m` overall and `scenario/m` per scenario: `m` (the mean over
seeds), `m.ci_low`, `m.ci_high`; beside them the champion's on the same seeds
(`m.champion`, `m.champion.ci_low`, `m.champion.ci_high`) and, per scenario, the paired
difference from the champion (`scenario/m.vs_champion` and its bounds). Values are rounded
to 4 decimals for the table; the exact numbers are in the run's `scorecard.json`.
"""

from __future__ import annotations

import hashlib
import json
import socket
import time
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.console.terminal import Terminal
from experiments.stores.creation import get_or_create, log_inputs, mlflow_duplicate
from experiments.stores.mlflow_sqlite import prepare
from policies import InputError
from villagelab.safe_text import redact, scrub

if TYPE_CHECKING:
    from scorecards import Comparison, MetricSummary, Scorecard

BATCH = 1000  # metrics per log_batch
PARAMS = 100  # params + tags per log_batch
DIGITS = 4


def now_ms() -> int:
    return int(time.time() * 1000)


def stamp() -> str:
    """A run's name suffix: local date and time to the second."""
    return time.strftime("%Y-%m-%d %H:%M:%S")


def _summary(key: str, m: MetricSummary | None) -> dict[str, float]:
    if m is None:
        return {}
    return {key: m.mean, f"{key}.ci_low": m.ci_low, f"{key}.ci_high": m.ci_high}


def scorecard_metrics(
    card: Scorecard,
    reference: Scorecard | None = None,
    comparison: Comparison | None = None,
    label: str = "champion",
) -> dict[str, float]:
    """Every number of a scorecard as MLflow metrics, a reference's beside each (the
    champion's in a search, the baseline's in a gate), keyed `.<label>` and `.vs_<label>`."""
    out: dict[str, float] = {}
    if card.objective is not None:
        out["objective"] = card.objective
        if card.objective_ci is not None:
            out["objective.ci_low"], out["objective.ci_high"] = card.objective_ci
    if reference is not None and reference.objective is not None:
        out[f"objective.{label}"] = reference.objective
        if reference.objective_ci is not None:
            out[f"objective.{label}.ci_low"], out[f"objective.{label}.ci_high"] = (
                reference.objective_ci
            )
    if comparison is not None:
        d = comparison.objective_diff
        out |= {
            f"objective.vs_{label}": d.mean,
            f"objective.vs_{label}.ci_low": d.ci_low,
            f"objective.vs_{label}.ci_high": d.ci_high,
        }
    for name, m in card.metrics.items():
        out |= _summary(name, m)
        if reference is not None:
            out |= _summary(f"{name}.{label}", reference.metrics.get(name))
    for scenario, by_name in card.scenarios.items():
        for name, m in by_name.items():
            out |= _summary(f"{scenario}/{name}", m)
            if reference is not None:
                out |= _summary(
                    f"{scenario}/{name}.{label}", reference.scenarios.get(scenario, {}).get(name)
                )
    if comparison is not None:
        for diff in comparison.metrics:
            key = f"{diff.scenario}/{diff.metric}.vs_{label}"
            out |= {
                key: diff.diff.mean,
                f"{key}.ci_low": diff.diff.ci_low,
                f"{key}.ci_high": diff.diff.ci_high,
            }
    return {k: round(v, DIGITS) for k, v in out.items()}


def log_metrics(client: Any, run_id: str, values: Mapping[str, float], step: int = 0) -> None:
    from mlflow.entities import Metric

    ts = now_ms()
    metrics = [Metric(k, float(v), ts, step) for k, v in values.items()]
    for i in range(0, len(metrics), BATCH):
        client.log_batch(run_id, metrics=metrics[i : i + BATCH])


def log_batch(
    client: Any, run_id: str, metrics: Sequence[Any] = (), tags: Mapping[str, str] | None = None
) -> None:
    """Metrics (`mlflow.entities.Metric`) and tags in as few `log_batch` calls as MLflow's
    limits allow (a store write each: one call where there were many)."""
    from mlflow.entities import RunTag

    tag_list = [RunTag(k, v) for k, v in (tags or {}).items()]
    metric_list = list(metrics)
    while metric_list or tag_list:
        now_tags, tag_list = tag_list[:PARAMS], tag_list[PARAMS:]
        room = BATCH - len(now_tags)
        now_metrics, metric_list = metric_list[:room], metric_list[room:]
        client.log_batch(run_id, metrics=now_metrics, tags=now_tags)


def log_params(client: Any, run_id: str, params: Mapping[str, Any]) -> None:
    """Params are immutable once logged and at most 6,000 characters each."""
    from mlflow.entities import Param

    items = [Param(k, scrub(_text(v))[:6000]) for k, v in params.items() if v is not None]
    for i in range(0, len(items), PARAMS):
        client.log_batch(run_id, params=items[i : i + PARAMS])


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value)


def without_secret(url: str | None) -> str | None:
    """A storage or tracking URL with its credentials masked, fit to be logged."""
    return None if url is None else redact(url)


def mlflow_client(uri: str) -> Any:
    """A client of the tracking store at `uri` (also its model registry). A server that
    cannot be reached stops the command at once with its address, credentials masked: MLflow's
    client would retry for minutes, then fail with the full URI in its message."""
    from mlflow.tracking import MlflowClient

    quiet()
    parts = urllib.parse.urlsplit(uri)
    if parts.scheme == "sqlite" and parts.path not in ("", "/", "/:memory:"):
        _prepare_sqlite(Path(parts.path[1:]))  # sqlite:///rel.db, sqlite:////abs.db
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


_PREPARED: set[Path] = set()  # stores checked by this process (once each)


def _prepare_sqlite(path: Path) -> None:
    """The SQLite store made whole before MLflow touches it (see sqlite_store); what was
    repaired is said on stderr."""

    if path in _PREPARED:
        return
    note = prepare(path)
    if note:
        Terminal(stderr=True).say(note, label="note:", label_style="yellow")
    _PREPARED.add(path)


def seed_set(name: str, scenarios: Sequence[str], seeds: Sequence[int], context: str) -> Any:
    """A seed set as an MLflow dataset input: one row per (scenario, seed), its source the
    suite file that declares the sets, tagged with what it was used for."""
    from mlflow.entities import Dataset, DatasetInput, InputTag

    from scenarios import SUITE_PATH

    rows = [{"scenario": str(s), "seed": int(seed)} for seed in seeds for s in scenarios]
    digest = hashlib.blake2b(json.dumps(rows).encode(), digest_size=4).hexdigest()
    schema = {
        "mlflow_colspec": [
            {"type": "string", "name": "scenario", "required": True},
            {"type": "long", "name": "seed", "required": True},
        ]
    }
    dataset = Dataset(
        name=name,
        digest=digest,
        source_type="local",
        source=json.dumps({"uri": str(SUITE_PATH)}),
        schema=json.dumps(schema),
        profile=json.dumps(
            {"num_rows": len(rows), "scenarios": len(scenarios), "seeds": ",".join(map(str, seeds))}
        ),
    )
    return DatasetInput(dataset, tags=[InputTag("mlflow.data.context", context)])


def quiet() -> None:
    """Schema migrations on a fresh store are not news."""
    import logging

    for noisy in ("mlflow", "alembic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def experiment(client: Any, name: str, artifacts: Path | None, description: str, kind: str) -> str:
    """Get or create an experiment (a concurrent creator may win the race), with its
    description and what kind of villagelab record it holds."""

    quiet()

    def create() -> Any:
        location = None
        if artifacts is not None:
            artifacts.mkdir(parents=True, exist_ok=True)
            location = artifacts.resolve().as_uri()
        return client.get_experiment(client.create_experiment(name, artifact_location=location))

    found = get_or_create(
        "experiment", name, lambda: client.get_experiment_by_name(name), create, mlflow_duplicate
    )
    set_experiment_tags(
        client, found, {"mlflow.note.content": description, "villagelab.kind": kind}
    )
    return str(found.experiment_id)


def set_experiment_tags(client: Any, found: Any, wanted: Mapping[str, str]) -> None:
    """Set the experiment tags that differ. Two drivers setting the same tag at once may collide
    in the store (MLflow inserts after looking): the loser reads the tag again, and it is done
    when the winner's value is the one wanted."""
    from mlflow.exceptions import MlflowException

    for key, value in wanted.items():
        if (found.tags or {}).get(key) == value:
            continue
        try:
            client.set_experiment_tag(found.experiment_id, key, value)
        except MlflowException:
            if client.get_experiment(found.experiment_id).tags.get(key) != value:
                client.set_experiment_tag(found.experiment_id, key, value)


def local_artifacts(uri: str, folder: Path) -> Path | None:
    """Where an experiment's artifacts go: a folder for a local store, or wherever a
    tracking server is told (None)."""
    return folder if uri.startswith(("sqlite:", "file:")) or "://" not in uri else None


def log_evaluation(
    uri: str,
    experiment_name: str,
    kind: str,
    description: str,
    run_name: str,
    params: Mapping[str, Any],
    card: Scorecard,
    files: Iterable[Path],
    datasets: Sequence[Any] = (),
    tags: Mapping[str, str] | None = None,
    artifacts_root: Path | None = None,
    parent: str | None = None,
    status: str = "FINISHED",
    reference: Scorecard | None = None,
    comparison: Comparison | None = None,
    label: str = "baseline",
) -> tuple[str, str]:
    """One MLflow run for one scorecard (a gate, a run, a sweep point): params, its metrics
    (a reference's beside them, if given), the scorecard and the reports as artifacts.
    Returns (experiment id, run id)."""
    client = mlflow_client(uri)
    folder = None if artifacts_root is None else local_artifacts(uri, artifacts_root)
    experiment_id = experiment(client, experiment_name, folder, description, kind)
    all_tags = {
        "villagelab.kind": kind,
        "villagelab.policy": card.policy,
        "villagelab.harness": card.harness,
        "villagelab.instrument": card.instrument,
        **{k: scrub(v) for k, v in (tags or {}).items()},
    }
    if parent is not None:
        all_tags["mlflow.parentRunId"] = parent
    run = client.create_run(experiment_id, run_name=run_name, tags=all_tags)
    run_id = run.info.run_id
    log_params(client, run_id, params)
    log_metrics(client, run_id, scorecard_metrics(card, reference, comparison, label))
    if datasets:
        log_inputs(client, run_id, list(datasets))  # two drivers may store the same one
    client.log_dict(run_id, card.to_json(), "scorecard.json")
    for path in files:
        client.log_artifact(run_id, str(path), "reports")
    client.set_terminated(run_id, status)
    return experiment_id, run_id


def run_address(uri: str, experiment_id: str, run_id: str) -> str:
    """Where to find a logged run: its UI route, under the store it went to."""
    return f"{redact(uri)} #/experiments/{experiment_id}/runs/{run_id}"


def start_group(
    uri: str,
    experiment_name: str,
    kind: str,
    description: str,
    run_name: str,
    params: Mapping[str, Any],
    artifacts_root: Path | None = None,
) -> str:
    """A parent run (a sweep) whose children are logged with `log_evaluation`."""
    client = mlflow_client(uri)
    folder = None if artifacts_root is None else local_artifacts(uri, artifacts_root)
    experiment_id = experiment(client, experiment_name, folder, description, kind)
    run = client.create_run(experiment_id, run_name=run_name, tags={"villagelab.kind": kind})
    log_params(client, run.info.run_id, params)
    return str(run.info.run_id)


def end_group(uri: str, run_id: str, status: str = "FINISHED") -> None:
    mlflow_client(uri).set_terminated(run_id, status)
