"""A deterministic interruption, for tests: with VILLAGELAB_INTERRUPT_AT=N the process ends at
its Nth checkpoint as a kill -9 would (os._exit: no cleanup, nothing flushed), so a test can
stop a run or a search at each moment that matters — between a temp file and its rename,
after a store is opened, between a trial's ask and tell — without sleeps. With
VILLAGELAB_CHECKPOINTS=FILE every checkpoint passed is appended to FILE (to count them).
Without either variable a checkpoint costs one dictionary lookup."""

from __future__ import annotations

import os

AT, LOG = "VILLAGELAB_INTERRUPT_AT", "VILLAGELAB_CHECKPOINTS"
_passed = [0]  # checkpoints passed by this process (a test hook; the simulation never reads it)


def checkpoint(where: str) -> None:
    at, log = os.environ.get(AT), os.environ.get(LOG)
    if not at and not log:
        return
    _passed[0] += 1
    if log:
        with open(log, "a") as fh:
            fh.write(f"{_passed[0]} {where}\n")
    if at and _passed[0] == int(at):
        os.write(2, f"interrupted at checkpoint {_passed[0]}: {where}\n".encode())
        os._exit(137)
