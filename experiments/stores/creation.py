"""Get-or-create for what several drivers may start at the same instant: an MLflow experiment,
the registered model, an Optuna study.

None of MLflow's or Optuna's create calls is idempotent: two drivers that both find nothing
both create, and the loser gets RESOURCE_ALREADY_EXISTS (MLflow) or DuplicatedStudyError
(Optuna). The loser then reads what the winner made. `BEFORE_CREATE` lets a test hold every
driver at the moment between "found nothing" and "create" (a barrier), so that the race is
taken on every repetition instead of by luck of timing; it is empty otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

# called with (kind, name) after a lookup found nothing and before the create call
BEFORE_CREATE: list[Callable[[str, str], None]] = []


def get_or_create(
    kind: str,
    name: str,
    find: Callable[[], T | None],
    create: Callable[[], T],
    duplicate: Callable[[BaseException], bool],
) -> T:
    """What `find` returns, else what `create` makes; when another creator won the race
    (`duplicate` recognises its error), what it made."""
    found = find()
    if found is not None:
        return found
    for hook in BEFORE_CREATE:
        hook(kind, name)
    try:
        return create()
    except Exception as exc:
        if not duplicate(exc):
            raise
        found = find()
        if found is None:  # said to exist, yet not readable: not a race we understand
            raise
        return found


def mlflow_duplicate(exc: BaseException) -> bool:
    """MLflow's answer to creating a name that exists (a store or a tracking server)."""
    from mlflow.exceptions import MlflowException

    return isinstance(exc, MlflowException) and exc.error_code == "RESOURCE_ALREADY_EXISTS"


def optuna_duplicate(exc: BaseException) -> bool:
    import optuna

    return isinstance(exc, optuna.exceptions.DuplicatedStudyError)


def log_inputs(client: Any, run_id: str, datasets: list[Any]) -> None:
    """`client.log_inputs`, taken again when another driver stored the same dataset at the
    same instant: MLflow looks the dataset up, then inserts it, and the loser of that race
    hits the store's unique constraint; taken again, it finds the winner's row."""
    for attempt in range(3):
        try:
            client.log_inputs(run_id, datasets=datasets)
            return
        except Exception as exc:
            if attempt == 2 or not _unique_clash(exc):
                raise


def _unique_clash(exc: BaseException) -> bool:
    from mlflow.exceptions import MlflowException

    text = str(exc)
    return isinstance(exc, MlflowException) and (
        exc.error_code == "RESOURCE_ALREADY_EXISTS"
        or "UNIQUE constraint failed" in text  # SQLite, in the store or behind a server
        or "duplicate key value" in text  # PostgreSQL
    )
