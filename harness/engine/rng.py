"""Common random numbers: every draw is a keyed digest of (scenario, seed, purpose, agent, ...).

A draw never depends on how many draws came before it, so a candidate and the champion on the
same seed face the same world even where their agents behave differently; and never on the
trial, the study, the worker or Python's per-process `hash()` salt.
"""

from __future__ import annotations

import hashlib

_SCALE = float(1 << 64)


class Draws:
    __slots__ = ("_prefix",)

    def __init__(self, scenario: str, seed: int) -> None:
        self._prefix = f"{scenario}\x1f{seed}\x1f".encode()

    def uniform(self, purpose: str, agent: str, *key: object) -> float:
        """A number in [0, 1), the same for the same key in any process."""
        text = "\x1f".join([purpose, agent, *map(str, key)]).encode()
        digest = hashlib.blake2b(self._prefix + text, digest_size=8).digest()
        return int.from_bytes(digest, "big") / _SCALE

    def choice(
        self, options: tuple[str, ...] | list[str], purpose: str, agent: str, *key: object
    ) -> str:
        return options[int(self.uniform(purpose, agent, *key) * len(options))]
