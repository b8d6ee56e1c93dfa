"""Atomic writes: a temp file whose name starts with '.' (readers skip it), fsynced, then
renamed over the target, so readers see the old file or the new one, never half of one."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from pathlib import Path
from typing import Any

from .interruption import checkpoint


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` atomically; a failure leaves no temp file behind. The file gets
    the usual permissions (0o666 less the process's umask, applied by the system)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        checkpoint(f"before renaming {path.name}")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable where the OS allows
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def atomic_write_json(path: str | Path, payload: Any) -> None:
    atomic_write_bytes(Path(path), (json.dumps(payload, indent=2, sort_keys=True) + "\n").encode())


def state_dir(sub: str, variable: str) -> Path:
    """villagelab's folder `sub` of the user's state directory (`$XDG_STATE_HOME`, default
    ~/.local/state), or the path the environment variable `variable` names."""
    base = os.environ.get(variable)
    if base:
        return Path(base)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "villagelab" / sub
