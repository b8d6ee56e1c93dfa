"""Common random numbers: every draw is a keyed digest of (scenario, seed, purpose, agent, ...).

A draw never depends on how many draws came before it, so a candidate and the champion on the
same seed face the same world even where their agents behave differently; and never on the
trial, the study, the worker or Python's per-process `hash()` salt.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable
from functools import lru_cache
from typing import Any

_SCALE = float(1 << 64)
_UNPACK = struct.Struct(">Q").unpack  # int.from_bytes(digest, "big"), a little cheaper


@lru_cache(maxsize=1024)
def _bar(chance: float) -> int:
    """The least 64-bit number `n` whose draw `n / 2**64` is not below `chance`: a draw is
    below `chance` exactly when its number is below this bar (the float division is
    monotone in `n`, so a bisection over the very expression finds it), an integer
    comparison in place of a division per draw."""
    low, high = 0, 1 << 64  # the draw of `high` is 1.0: never below a chance of at most 1
    if high / _SCALE < chance:
        return high + 1  # a chance above 1: every draw is below it
    while low < high:
        middle = (low + high) // 2
        if middle / _SCALE < chance:
            low = middle + 1
        else:
            high = middle
    return low


@lru_cache(maxsize=1024)
def _bar_bytes(chance: float) -> bytes:
    """`_bar(chance)` as bytes that an 8-byte big-endian digest is below exactly when its
    number is below the bar: equal lengths compare as the numbers do, and nine bytes 0xff
    are above every digest (a bar past 2**64 - 1: every draw is below the chance)."""
    bar = _bar(chance)
    return bar.to_bytes(8, "big") if bar < 1 << 64 else b"\xff" * 9


# a crowd for `Draws.below_each`: its agents, each one's started digest, the bar as bytes
Crowd = tuple[list[str], list[Any], bytes]


class Draws:
    __slots__ = ("_key", "_prefix", "_started")

    def __init__(self, scenario: str, seed: int) -> None:
        self._key = (scenario, seed)
        self._prefix = f"{scenario}\x1f{seed}\x1f".encode()
        # purpose → agent → the digest already fed with both: a draw copies one, not re-hashes
        self._started: dict[str, dict[str, Any]] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        return (Draws, self._key)

    def uniform(self, purpose: str, agent: str, *key: object) -> float:
        """A number in [0, 1), the same for the same key in any process."""
        if not key:
            text = f"{purpose}\x1f{agent}".encode()
            digest = hashlib.blake2b(self._prefix + text, digest_size=8).digest()
            return int.from_bytes(digest, "big") / _SCALE
        heads = self._started.get(purpose) or self._heads(purpose)
        h = heads.get(agent) or self._started_with(purpose, agent)
        h = h.copy()  # the same bytes, the head fed once
        h.update((str(key[0]) if len(key) == 1 else "\x1f".join(map(str, key))).encode())
        return float(_UNPACK(h.digest())[0] / _SCALE)

    def _heads(self, purpose: str) -> dict[str, Any]:
        return self._started.setdefault(purpose, {})

    def _started_with(self, purpose: str, agent: str) -> Any:
        """The digest fed with the prefix, `purpose` and `agent` (each with its separator)."""
        heads = self._heads(purpose)
        h = heads.get(agent)
        if h is None:
            h = hashlib.blake2b(self._prefix + f"{purpose}\x1f{agent}\x1f".encode(), digest_size=8)
            heads[agent] = h
        return h

    def series(self, purpose: str, agent: str, *key: object) -> Callable[[object], float]:
        """`uniform(purpose, agent, *key, last)` as a function of `last`, for many at once:
        the digest fed with all but `last` once, then copied (the same bytes, so the same
        numbers)."""
        head = self._started_with(purpose, agent).copy()
        head.update("".join(f"{k}\x1f" for k in key).encode())

        def draw(last: object) -> float:
            h = head.copy()
            h.update(str(last).encode())
            return float(_UNPACK(h.digest())[0] / _SCALE)

        return draw

    def crowd(self, purpose: str, agents: list[str], chance: float) -> Crowd:
        """`agents` ready for `below_each`: each one's digest fed with `purpose` and its name,
        and the chance as the bar their draws' bytes are compared with (kept by the caller
        while the crowd stays as it is, so a tick looks nothing up)."""
        heads = self._heads(purpose)  # built whenever someone moves: at 1,000 agents, often
        started = [heads.get(a) or self._started_with(purpose, a) for a in agents]
        return agents, started, _bar_bytes(chance)

    def below_each(self, minute: int, crowds: list[Crowd]) -> list[tuple[int, list[str]]]:
        """For each crowd of a tick, one call for all, the agents whose
        `uniform(purpose, agent, minute)` is below the crowd's chance, in their order: the
        crowds (by index) where some draw is, with those agents."""
        tail, found = str(minute).encode(), []
        for i, (agents, started, bar) in enumerate(crowds):
            chosen = []
            for agent, h in zip(agents, started):
                h = h.copy()
                h.update(tail)
                if h.digest() < bar:  # the digest's number / 2**64 < chance
                    chosen.append(agent)
            if chosen:
                found.append((i, chosen))
        return found

    def choice(
        self, options: tuple[str, ...] | list[str], purpose: str, agent: str, *key: object
    ) -> str:
        return options[int(self.uniform(purpose, agent, *key) * len(options))]
