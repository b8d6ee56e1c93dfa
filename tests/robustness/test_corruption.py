"""Generated damage to what villagelab wrote: any file of a finished run folder (a trace, the
manifest) cut, a byte changed, or deleted; the Optuna journal of a study cut, a byte changed, a
line dropped or repeated. `score` then refuses cleanly (exit 2 naming the damaged file, no
traceback) or, when the damage left the bytes as they were, gives the very same scorecard:
never a different answer without an error. `report` on a damaged journal answers or refuses
cleanly. In this process; CI runs a fixed sample, --robustness-full thousands (the census,
`python -m tests.robustness.census --corruptions N`, tallies them)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .corrupt import damage, finished_run, journal_damage, judge_folder, judge_journal, study
from .invoke import FAILED

SAMPLE, FULL = 15, 2000


def sized(full: bool, sample: int = SAMPLE) -> settings:
    return settings(
        max_examples=FULL if full else sample,
        derandomize=not full,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


@pytest.fixture(autouse=True)
def _private_records(tmp_path, monkeypatch):
    monkeypatch.setenv("VILLAGELAB_PROCESS_RECORDS", str(tmp_path / "records"))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    return finished_run(tmp_path_factory.mktemp("corruption"))


def test_a_damaged_run_folder_is_refused_or_scored_the_same(finished, tmp_path, robustness_full):
    folder, card = finished
    n = [0]

    @sized(robustness_full)
    @given(st.data())
    def case(data: st.DataObject) -> None:
        n[0] += 1
        harm = data.draw(damage(folder))
        verdict, detail = judge_folder(folder, card, tmp_path / f"case-{n[0]}", harm)
        assert verdict != FAILED, detail

    case()


@pytest.fixture(scope="module")
def journal(tmp_path_factory):
    return study(tmp_path_factory.mktemp("journal"))


def test_a_damaged_journal_is_reported_cleanly(journal, robustness_full):
    runs, args = journal
    original = (runs / "optuna.journal").read_bytes()

    @sized(robustness_full, sample=5)
    @given(journal_damage(original))
    def case(harm: tuple[str, bytes]) -> None:
        verdict, detail = judge_journal(runs, args, harm)
        assert verdict != FAILED, detail

    case()
