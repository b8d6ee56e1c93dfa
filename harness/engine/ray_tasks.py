"""An episode as a Ray task, and how a driver gives up a batch of them (a pruned trial's,
`runner.RayBatch.close`) with workers that Ray can interrupt.

On a local cluster, no ray.cancel: the driver makes the batch's mark, each queued episode of
the batch sees it and returns at once, and one already running ends as it would (its worker
lives on for the next task). ray.cancel of a task whose result is already on its way races in
Ray's core (a driver abort in task_manager.cc, "Tried to complete task that was not pending";
ray-project/ray#54798 fixed one such race), and a search gives up thousands of batches. On a
user's cluster, whose workers do not share this disk, the batch cancels its tasks (never
forced: a forced cancel kills the worker, and its replacement imports the whole stack again).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import Any

from villagelab.yamlsource import InputError

# Where a local cluster's driver marks the batches it closed (one empty file a batch): its
# workers share this machine's disk, so a queued episode of a closed batch sees the mark and
# returns at once. None when no local cluster was started here (the user's cluster).
_closed_batches: list[str] = []  # the folder, once this process started a local cluster


def mark_closed_batches_here() -> None:
    """This process started a local cluster: its batches are closed by marks in a folder of
    its own (removed at exit)."""
    if not _closed_batches:
        _closed_batches.append(tempfile.mkdtemp(prefix="villagelab-closed-batches-"))
        atexit.register(shutil.rmtree, _closed_batches[0], True)


def closed_mark() -> str | None:
    """Where a new batch's mark will be made when it is closed (None: close by ray.cancel)."""
    if not _closed_batches:
        return None
    return os.path.join(_closed_batches[0], secrets.token_hex(8))


@contextlib.contextmanager
def interruptible_children() -> Iterator[None]:
    """Let the processes started inside have Python's SIGINT handler. A driver started with
    SIGINT ignored (a background job of a non-interactive shell, nohup, some CI runners) would
    hand SIG_IGN to Ray's raylet and so to every worker: then Ray's cancellation cannot
    interrupt a task, and its DeferSigint calls the ignored disposition as a function
    ("TypeError: 'Handlers' object is not callable"). A caught signal is reset to the default
    in a child at exec, an ignored one is kept, so the driver catches it while Ray starts."""
    if threading.current_thread() is not threading.main_thread() or callable(
        signal.getsignal(signal.SIGINT)
    ):
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)


@contextlib.contextmanager
def sigterm_kept() -> Iterator[None]:
    """Around ray.init: give SIGTERM back to Python once Ray has taken it. Ray's init sets a
    handler of its own (sys.exit), and its core worker then puts Abseil's failure handler in
    front of it, which on a SIGTERM arms a 3-second alarm that aborts the process: a driver
    told to stop was killed half-way through stopping its cluster, and the cluster's agents
    and workers ran on. The process's own handler (the console script's), or else Ray's, is
    installed again through Python, which takes the signal from Abseil's."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        chosen = before if callable(before) else signal.getsignal(signal.SIGTERM)
        if chosen is not None:
            signal.signal(signal.SIGTERM, chosen)


def episode_task(
    function: Callable[..., Any], closed: str | None, *args: Any, **kwargs: Any
) -> Any:
    """One episode on a worker: none if its batch was closed before it began (`closed` is
    the mark its driver makes then). A worker on a cluster not started here may have SIGINT
    ignored: it gets Python's handler back, so that Ray can interrupt it."""
    if threading.current_thread() is threading.main_thread() and not callable(
        signal.getsignal(signal.SIGINT)
    ):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if closed is not None and os.path.exists(closed):
        return None
    return function(*args, **kwargs)


NICENESS_VARIABLE = "VILLAGELAB_WORKER_NICENESS"


def worker_niceness() -> int:
    """How nice a local cluster's workers are: `VILLAGELAB_WORKER_NICENESS` (0..19), default
    0 — as the driver. Ray's own default, 15, lets anything else on a busy machine starve
    them (a trial 145 s on Ray against 40 s serial); a higher value yields to other work."""
    text = os.environ.get(NICENESS_VARIABLE, "0")
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 19:
        raise InputError(
            f"the environment variable {NICENESS_VARIABLE}={text!r}: expected a whole number "
            "from 0 (as the driver) to 19 (yield to everything)"
        )
    return value
