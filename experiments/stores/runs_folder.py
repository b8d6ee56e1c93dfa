"""The runs folder: everything a search keeps, in one place (design §9 defaults).

A leaf of the experiments package, so that the search, the champion registry, the morning
report and the command line can all name its paths without importing one another.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from experiments.stores.names import check_name
from harness.engine.store import within


@dataclass(frozen=True)
class RunsDir:
    """`optuna.journal`, `mlflow.db` (an absolute SQLite URI), `artifacts/`, `studies/`."""

    root: Path

    @property
    def journal(self) -> Path:
        return self.root / "optuna.journal"

    @property
    def tracking_uri(self) -> str:
        return f"sqlite:///{(self.root / 'mlflow.db').resolve()}"

    @property
    def artifacts(self) -> Path:
        return (self.root / "artifacts").resolve()

    def study_dir(self, study: str) -> Path:
        return within(self.root, self.root / "studies" / check_name("study", study))


__all__ = ["RunsDir"]
