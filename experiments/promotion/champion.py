"""The champion lives in the MLflow model registry (design §7).

Each promotion registers a version of the model `villagelab-policy` whose source is an artifact
folder holding the policy YAML, its scorecard and report, and moves the alias `champion` to it.
Every version records the version it replaced, so a rollback knows where "back" is. YAML files
are only exports. Optuna's best trial is not the champion.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from experiments.console.terminal import Terminal
from experiments.stores.creation import get_or_create, mlflow_duplicate
from experiments.stores.runs_folder import RunsDir
from experiments.tracking.records import mlflow_client
from policies import BUILTIN, InputError, Policy, Surface

MODEL = "villagelab-policy"
ALIAS = "champion"
HELD_BY = "villagelab.champion_version"  # a model tag: the version the alias points at


@dataclass(frozen=True)
class Version:
    version: int
    policy_hash: str
    objective: float | None
    study: str
    trial: str
    previous: int | None
    source: str
    current: bool


def _client(tracking_uri: str) -> Any:

    return mlflow_client(tracking_uri)


def _version(mv: Any, current: int | None) -> Version:
    tags = mv.tags or {}
    objective = tags.get("objective")
    previous = tags.get("previous")
    return Version(
        int(mv.version),
        tags.get("policy", ""),
        None if objective in (None, "None") else float(objective),
        tags.get("study", ""),
        tags.get("trial", ""),
        None if previous in (None, "", "None") else int(previous),
        mv.source,
        int(mv.version) == current,
    )


class Registry:
    def __init__(self, tracking_uri: str) -> None:
        self.uri = tracking_uri
        self.client = _client(tracking_uri)

    def _exists(self) -> bool:
        from mlflow.exceptions import MlflowException

        try:
            self.client.get_registered_model(MODEL)
            return True
        except MlflowException:
            return False

    def ensure_model(self) -> None:
        """Get-or-create the registered model: drivers of different studies sharing one
        store may both register their first champion at the same instant."""

        get_or_create(
            "registered_model",
            MODEL,
            lambda: True if self._exists() else None,
            lambda: self.client.create_registered_model(
                MODEL, description="villagelab policies; the alias 'champion' is the champion"
            ),
            mlflow_duplicate,
        )

    def current_version(self) -> int | None:
        from mlflow.exceptions import MlflowException

        if not self._exists():
            return None
        try:
            return int(self.client.get_model_version_by_alias(MODEL, ALIAS).version)
        except MlflowException:
            return self._restore()

    def _point(self, version: int | str) -> None:
        """Move the alias, recording where on the model first (a tag), so that a lost alias
        can be put back where it was."""
        self.client.set_registered_model_tag(MODEL, HELD_BY, str(version))
        self.client.set_registered_model_alias(MODEL, ALIAS, str(version))

    def _restore(self) -> int | None:
        """The alias is gone while versions exist: put it back on the version the model's tag
        says it held (moved with every promotion and rollback) or, for a registry older than
        the tag, on the latest promotion; said on stderr. Never the start policy again."""
        versions = {int(v.version) for v in self.client.search_model_versions(f"name='{MODEL}'")}
        if not versions:
            return None
        held = self.client.get_registered_model(MODEL).tags.get(HELD_BY, "")
        target = int(held) if held.isdigit() and int(held) in versions else max(versions)
        self._point(target)
        how = "where the registry recorded it" if held == str(target) else "the latest promotion"
        Terminal(stderr=True).say(
            f"the registry's alias '{ALIAS}' of {MODEL} was missing; restored to version "
            f"{target} ({how})",
            label="note:",
            label_style="yellow",
        )
        return target

    def promote(
        self,
        run_id: str,
        source: str,
        policy: Policy,
        objective: float | None,
        study: str,
        trial: str,
        description: str = "",
    ) -> int:
        """Register `source` (an artifact folder with policy.yaml) and move the alias; the
        description holds the promotion's evidence (markdown, shown by the MLflow UI)."""
        self.ensure_model()
        previous = self.current_version()
        tags = {"policy": policy.hash, "objective": str(objective), "study": study, "trial": trial}
        if previous is not None:  # the first champion replaced nothing: no tag, not "None"
            tags["previous"] = str(previous)
        mv = self.client.create_model_version(
            MODEL, source=source, run_id=run_id, tags=tags, description=description or None
        )
        self._point(mv.version)
        return int(mv.version)

    def history(self) -> list[Version]:
        if not self._exists():
            return []
        current = self.current_version()
        found = self.client.search_model_versions(f"name='{MODEL}'")
        return sorted((_version(mv, current) for mv in found), key=lambda v: v.version)

    def policy(self, version: int | None = None) -> tuple[int, Policy]:
        """The policy of a version (default: the champion)."""
        from mlflow.artifacts import download_artifacts

        number = version if version is not None else self.current_version()
        if number is None:
            raise InputError("no champion yet: run 'villagelab search' first")
        mv = self.client.get_model_version(MODEL, str(number))
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(
                download_artifacts(artifact_uri=mv.source, dst_path=tmp, tracking_uri=self.uri)
            )
            values = yaml.safe_load((folder / "policy.yaml").read_text())
            own = folder / "surface.json"  # an agent's own parameters, when it declared some
            surface = Surface.from_json(json.loads(own.read_text())) if own.exists() else BUILTIN
        flat = {f"{family}.{k}": v for family, group in values.items() for k, v in group.items()}
        return number, Policy(flat, surface)

    def export(self, path: Path) -> tuple[int | None, float | None]:
        """The champion's policy written to `path` (when there is one): its version and
        objective."""
        from villagelab.files import atomic_write_bytes

        version = self.current_version()
        if version is None:
            return None, None
        atomic_write_bytes(path, self.policy(version)[1].to_yaml().encode())
        found = {v.version: v for v in self.history()}
        return version, found[version].objective if version in found else None

    def rollback(self, to: int | None = None) -> tuple[int, int]:
        """Move the alias back (to the version the champion replaced, or to `to`)."""
        history = {v.version: v for v in self.history()}
        current = self.current_version()
        if current is None:
            raise InputError("no champion to roll back")
        target = to if to is not None else history[current].previous
        if target is None:
            raise InputError(f"version {current} is the first champion; nothing to roll back to")
        if target not in history:
            raise InputError(
                f"no version {target}; versions: {', '.join(map(str, sorted(history)))}"
            )
        self._point(target)
        return current, target


def tracking_uri_for(runs_dir: Path, tracking_uri: str | None = None) -> str:
    return tracking_uri or RunsDir(runs_dir).tracking_uri


def champion_policy(runs_dir: Path, tracking_uri: str | None = None) -> Policy:
    if tracking_uri is None and not (runs_dir / "mlflow.db").exists():
        raise InputError(
            f"{runs_dir}: no run store (mlflow.db); run 'villagelab search' first "
            "or give --runs-dir"
        )
    return Registry(tracking_uri_for(runs_dir, tracking_uri)).policy()[1]
