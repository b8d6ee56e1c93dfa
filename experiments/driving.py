"""What a driver does around a search before it touches the study: with a file journal, take
the runs folder's driver lock (one driver per journal file) and cut away a last line a killed
driver left half written; then refuse a study whose Optuna record vanished while MLflow
holds its trial runs. The lock goes when the search ends, however it ends."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from . import journal
from .study import storage_for
from .tracking import Tracker


def guarded(run: Callable[..., Any]) -> Callable[..., Any]:
    """`Search.run`, wrapped: the notes of what was repaired go to its `on_notice`."""

    @functools.wraps(run)
    def wrapped(search: Any, on_trial: Any = None, on_notice: Any = None) -> Any:
        runs, url = search.runs, search.storage_url
        lock, notes = journal.claim(runs.root, runs.journal, url)
        try:
            if notes:  # the journal changed under the storage opened before: open it again
                search.storage = storage_for(url, runs.journal)
            for note in notes if on_notice else []:
                on_notice(note)
            search.tracker = Tracker(search.tracking_uri, search.name, runs.artifacts / search.name)
            journal.refuse_vanished(search.name, search.storage, search.tracker, url)
            return run(search, on_trial, on_notice)
        finally:
            journal.release(lock)

    return wrapped
