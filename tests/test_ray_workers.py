"""Ray that pays: a pruned trial's episodes are cancelled without killing the workers that run
them, so the next trial reuses them; the workers' niceness is ours to set."""

from __future__ import annotations

import os
import shlex
import signal
import time

import pytest

from harness import Job
from harness.agents import AGENT_KINDS
from harness.engine.runner import RayBatch, worker_niceness
from policies import baseline_path, load_policy
from scenarios import village
from villagelab.yamlsource import InputError

from .conftest import ROOT


def _worker() -> tuple[int, int]:
    return os.getpid(), os.nice(0)


@pytest.mark.ray
def test_closing_a_batch_early_leaves_its_workers_alive(ray_cluster):
    ray = ray_cluster
    probe = ray.remote(_worker)
    before = set(ray.get([probe.remote() for _ in range(8)]))
    # long episodes, so that both workers are busy when the batch is closed
    jobs = [Job(village(60, 0, hours=24), seed) for seed in range(4)]
    batch = RayBatch(jobs, load_policy(baseline_path()), agent=AGENT_KINDS["reference"])
    ray.wait(list(batch.pending.values()), timeout=3)  # let them start
    batch.close()  # as a pruned trial does
    after = set(ray.get([probe.remote() for _ in range(8)]))
    # no worker replaced: every process that answers now answered before (which of them
    # takes the probes depends on which is still finishing its interrupted episode)
    assert {pid for pid, _ in after} <= {pid for pid, _ in before}
    # Ray nices its workers relative to the process that started the cluster (this one)
    assert {nice for _, nice in after} == {min(19, os.nice(0) + worker_niceness())}


@pytest.mark.ray
def test_a_sigterm_once_ray_has_started_reaches_python_and_arms_no_abort(ray_cluster):
    """ray.init puts Abseil's failure handler in front of SIGTERM, and that handler arms an
    alarm that aborts the process three seconds on, whatever its cleanup is doing (a cluster
    half stopped); ensure_ray gives the signal back to Python's handler."""
    assert callable(signal.getsignal(signal.SIGTERM))  # never the default: it would end pytest
    with pytest.raises(SystemExit):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)  # the handler raises at the next instruction
    assert signal.alarm(0) == 0  # no alarm pending (and one that was is cancelled)


def test_a_bad_niceness_is_refused_naming_the_variable(monkeypatch):
    monkeypatch.setenv("VILLAGELAB_WORKER_NICENESS", "fast")
    with pytest.raises(InputError, match="VILLAGELAB_WORKER_NICENESS='fast'"):
        worker_niceness()


def test_run_refuses_a_bad_niceness_before_anything_is_written(cli, tmp_path):
    result = cli(
        *shlex.split("run --scenario public_fact --seeds 0"),
        *("--policy", str(ROOT / "policies" / "careful.yaml"), "--out", str(tmp_path / "out")),
        env={"VILLAGELAB_WORKER_NICENESS": "25"},
    )
    assert result.returncode == 2 and "from 0" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "out").exists()
