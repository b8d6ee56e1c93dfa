"""The endpoint's address without its secrets, and a cap on calls in flight to it.

`public_endpoint` is the only spelling of an endpoint that reaches a message, a log line, a
trace or MLflow: scheme, host, port and path — never a user, password or query string (some
hosted APIs take their key there). `CallSlots` caps concurrent calls per endpoint across every
process on one machine (Ray workers included) with `flock`ed slot files: the kernel releases a
slot when its holder dies, so a killed worker never leaks one.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from .calls import EndpointFailure


def public_endpoint(base_url: str) -> str:
    """The base URL with credentials and query removed: safe to print, log and record."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def endpoint_key(base_url: str) -> str:
    return hashlib.blake2b(public_endpoint(base_url).encode(), digest_size=8).hexdigest()


class CallSlots:
    """At most `limit` calls in flight to one endpoint from this machine, whoever makes them."""

    def __init__(self, folder: Path, base_url: str, limit: int, wait_s: float) -> None:
        self.folder = Path(folder) / endpoint_key(base_url)
        self.limit, self.wait_s = limit, wait_s
        self.endpoint = public_endpoint(base_url)

    @contextmanager
    def hold(self) -> Iterator[int]:
        """Take a free slot for the duration of a call; wait (bounded) when all are taken."""
        self.folder.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.wait_s
        pause = 0.005
        while True:
            for slot in range(self.limit):
                fd = os.open(self.folder / f"{slot}.lock", os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                try:
                    yield slot
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                    os.close(fd)
                return
            if time.monotonic() >= deadline:
                raise EndpointFailure(
                    f"{self.endpoint}: all {self.limit} call slots stayed "
                    f"busy for {self.wait_s:g} s"
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.1)
