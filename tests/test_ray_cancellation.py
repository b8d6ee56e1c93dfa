"""An overnight search survives its engine (issue 29): a search with pruning closes thousands
of batches early. ray.cancel of tasks whose results were already on their way aborted the
driver inside Ray (task_manager.cc: "Tried to complete task that was not pending"), and with
the driver started with SIGINT ignored (a background job) every worker had SIGINT ignored too,
so Ray's cancellation printed "TypeError: 'Handlers' object is not callable". Here a driver
started that way closes many batches at every point of their lives, as pruned trials do."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from .conftest import ROOT

BATCHES = 400
DRIVER = f"""
import sys
from harness import Job
from harness.engine.runner import RayBatch, ensure_ray, stop_local_cluster
from policies import baseline_path, load_policy
from scenarios import load_scenario
from tests.fixtures.brief import brief_episode

ensure_ray(workers=2)
policy, scenario = load_policy(baseline_path()), load_scenario("public_fact")
jobs = [Job(scenario, seed) for seed in range(8)]
consumed = 0
for i in range(0, {BATCHES}, 2):  # two trials in flight at once, as a search keeps them
    first, second = (
        iter(RayBatch(jobs, policy, agent="x", function=brief_episode)) for _ in range(2)
    )
    for batch, keep in ((first, i % 9), (second, (i * 7) % 9)):
        for _ in range(keep):  # a pruned trial reads some results, then closes the rest
            consumed += next(batch, None) is not None
        batch.close()
print("consumed", consumed)
stop_local_cluster()
"""


@pytest.mark.ray
@pytest.mark.slow
def test_closing_batches_early_many_times_neither_aborts_the_driver_nor_errs_in_workers(
    tmp_path,
):
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "VILLAGELAB_PROCESS_RECORDS": str(tmp_path / "records"),
    }
    result = subprocess.run(
        [sys.executable, "-c", DRIVER],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        # as a background job of a non-interactive shell starts it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert "consumed" in result.stdout
    for sign in ("Unhandled error", "Handlers", "Check failed", "task_manager.cc"):
        assert sign not in result.stderr, result.stderr[-3000:]


def test_a_worker_with_sigint_ignored_gets_pythons_handler_back():
    """What each episode task does first where the cluster was not started here."""
    from harness.engine.ray_tasks import episode_task

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert episode_task(lambda: "ran", None) == "ran"
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_queued_episode_of_a_closed_batch_does_not_run(tmp_path):
    from harness.engine.ray_tasks import episode_task

    mark = tmp_path / "closed"
    assert episode_task(lambda: "ran", str(mark)) == "ran"
    mark.touch()
    assert episode_task(lambda: "ran", str(mark)) is None
