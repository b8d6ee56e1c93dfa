"""A trial's Optuna records held back and written in one append (issue 19: the driver's cost per
trial): the same records as one append each, seen by reads before they are written."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path

import optuna
import pytest

from experiments.search.study import storage_for
from experiments.stores import journal

optuna.logging.set_verbosity(optuna.logging.WARNING)


def _trial(storage, hold: bool) -> None:
    """Ask, attributes, parameters, constraints, report and tell: a search trial's writes."""
    sampler = optuna.samplers.RandomSampler(seed=1)
    study = optuna.create_study(
        study_name="s", storage=storage, direction="maximize", sampler=sampler
    )
    with journal.held(storage) if hold else nullcontext():
        trial = study.ask()
        trial.set_user_attr("driver", "d")
        x = trial.suggest_float("x", 0, 1)
        trial.suggest_categorical("c", ["a", "b"])
    trial.report(x, 0)
    with journal.held(storage) if hold else nullcontext():
        trial.set_constraint("reach", -0.5)
        trial.set_user_attr("decision", "rolled_back")
        study.tell(trial, x)


def _records(path: Path) -> list[dict]:
    out = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        for key in ("worker_id", "datetime_start", "datetime_complete"):
            record.pop(key, None)
        out.append(record)
    return out


def test_held_records_are_the_same_records_as_one_append_each(tmp_path):
    held, each = tmp_path / "held.journal", tmp_path / "each.journal"
    _trial(storage_for(None, held), hold=True)
    _trial(storage_for(None, each), hold=False)
    assert _records(held) == _records(each)
    assert len(_records(held)) == 9  # study, ask, 2 attrs, 2 params, report, constraint, tell
    again = optuna.load_study(study_name="s", storage=storage_for(None, held)).trials[0]
    assert again.state == optuna.trial.TrialState.COMPLETE
    assert again.user_attrs == {"driver": "d", "decision": "rolled_back"}
    assert set(again.params) == {"x", "c"}


def test_reads_see_held_records_and_the_file_gets_them_when_the_block_ends(tmp_path):
    path = tmp_path / "optuna.journal"
    storage = storage_for(None, path)
    study = optuna.create_study(study_name="s", storage=storage)
    written = len(path.read_text().splitlines())
    with journal.held(storage):
        trial = study.ask()
        trial.suggest_int("n", 0, 9)
        trial.set_user_attr("driver", "d")
        assert len(path.read_text().splitlines()) == written  # held, not written
        seen = study.get_trials(deepcopy=False)[0]
        assert (set(seen.params), seen.user_attrs) == ({"n"}, {"driver": "d"})
    assert len(path.read_text().splitlines()) == written + 3
    # the file backend knows where they end: its next read seeks there, not from line one
    assert written + 3 in storage._backend._inner._log_number_offset
    with pytest.raises(RuntimeError), journal.held(storage):
        trial.set_user_attr("reason", "r")
        raise RuntimeError("a failure inside the block")
    # what was held is written all the same, as it would have been one append at a time
    reread = optuna.load_study(study_name="s", storage=storage_for(None, path))
    assert reread.trials[0].user_attrs == {"driver": "d", "reason": "r"}


def test_held_does_nothing_for_another_storage():
    storage = optuna.storages.InMemoryStorage()
    with journal.held(storage):
        optuna.create_study(storage=storage).ask()
    assert len(storage.get_all_studies()) == 1


def _asked(path: Path):  # type: ignore[no-untyped-def]
    storage = storage_for(None, path)
    study = optuna.create_study(
        study_name="s",
        storage=storage,
        direction="maximize",
        pruner=optuna.pruners.ThresholdPruner(lower=0.5),
    )
    return storage, study.ask()


def test_a_trials_reports_are_held_seen_by_the_pruner_and_written_together(tmp_path):
    from experiments.search.trials import HeldReports

    path = tmp_path / "optuna.journal"
    storage, trial = _asked(path)
    before = path.read_bytes()
    reports = HeldReports(lambda: journal.held(storage), limit=3600)
    prunes = []
    for step, value in enumerate([0.9, 0.7, 0.4]):
        with reports:
            trial.report(value, step)
            prunes.append(trial.should_prune())
    assert prunes == [False, False, True]  # the pruner read the held values
    assert path.read_bytes() == before  # nothing written yet
    reports.write()
    again = optuna.load_study(study_name="s", storage=storage_for(None, path)).trials[0]
    assert again.intermediate_values == {0: 0.9, 1: 0.7, 2: 0.4}


def test_reports_held_past_their_limit_or_through_an_error_are_written(tmp_path):
    from experiments.search.trials import HeldReports

    path = tmp_path / "optuna.journal"
    storage, trial = _asked(path)
    reports = HeldReports(lambda: journal.held(storage), limit=0)  # a live view follows each
    with reports:
        trial.report(0.9, 0)
    assert "intermediate_value" in path.read_text().splitlines()[-1]
    reports = HeldReports(lambda: journal.held(storage), limit=3600)
    with pytest.raises(KeyboardInterrupt), reports:
        trial.report(0.8, 1)
        raise KeyboardInterrupt
    again = optuna.load_study(study_name="s", storage=storage_for(None, path)).trials[0]
    assert again.intermediate_values == {0: 0.9, 1: 0.8}
