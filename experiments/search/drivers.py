"""Which driver owns a trial or a run, and whether it may still be working on it.

Heartbeats exist only for Optuna's RDB storage under `study.optimize`; an ask/tell driver
tags what it opens with `host:pid` and, on start-up, fails what dead drivers left behind.
"""

from __future__ import annotations

import os
import socket


def driver_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def alive(driver: str | None) -> bool:
    """Whether the driver that owns a trial or run may still be working on it."""
    if not driver or ":" not in driver:
        return False
    host, pid = driver.rsplit(":", 1)
    if host != socket.gethostname():
        return True  # another machine's driver: not ours to judge
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, ValueError):
        return False
    except PermissionError:
        return True
    return True
