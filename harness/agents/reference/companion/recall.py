"""Memory (layer 3) for a character: a write rule, recall that may return nothing, strength
only from real use, a capacity with an eviction log — over the reference memory model.

Write rule: what it would still need a year from now — something stated or promised about a
proposition. Greetings, small talk and questions are not written; a crisis turn never is
(the safety layer decides before anything is written). Recall of a proposition: every
experience about it whose activation (retention + importance + a little keyed noise) reaches
the policy's recall threshold, newest first; below the threshold nothing comes to mind. A
low threshold lets in weak memories too (a joke taken at its word); a high one forgets old
promises.
"""

from __future__ import annotations

from typing import Any

from harness.engine.contract import AgentSetup

from ..context import Diagnostics
from ..memory import memory_op
from ..model import memory as mem

NOISE = 0.1


class CharacterMemory:
    def __init__(self, ctx: AgentSetup, log: Diagnostics) -> None:
        self.ctx, self.log = ctx, log
        self.store = mem.Memory(ctx.name, int(ctx.policy["memory.capacity"]))
        self.threshold = float(ctx.policy["companion.recall_threshold"])

    def get_state(self) -> dict[str, Any]:
        return self.store.to_json()

    def set_state(self, state: dict[str, Any]) -> None:
        self.store = mem.Memory.from_json(state)

    def write(self, minute: int, eid: int, **fields: Any) -> mem.Experience:
        exp, evicted = mem.write(self.store, minute, eid, **fields)
        self._op(minute, eid, "write", exp, purpose=fields.get("kind", "experience"))
        for e in evicted:
            self._op(minute, eid, "evict", e)
        return exp

    def activation(self, exp: mem.Experience, now: int) -> float:
        noise = self.ctx.draws.uniform("retrieval", self.store.owner, now, exp.id) - 0.5
        return mem.retention(self.store, exp, now) + exp.importance + NOISE * noise

    def recall(self, proposition: str, now: int, *, use: bool = True) -> list[mem.Experience]:
        """What comes to mind about `proposition`, newest first (maybe nothing). `use=False` is
        a read (a probe): nothing is traced or strengthened."""
        found = [
            e
            for e in self.store.experiences.values()
            if e.proposition == proposition and self.activation(e, now) >= self.threshold
        ]
        found.sort(key=lambda e: (-e.minute, -e.id))
        if use:
            for rank, e in enumerate(found):
                self._op(now, 0, "retrieve", e, purpose=proposition, rank=rank, relevant=True)
            if not found:
                self._op(now, 0, "retrieve", None, purpose=proposition, subject=proposition)
            mem.strengthen(self.store, found, now)
        return found

    def _op(self, minute: int, eid: int, op: str, exp: mem.Experience | None, **extra: Any) -> None:
        self.log.add(memory_op(self.ctx.name, self.store, minute, eid, op, exp, **extra))


def surest(found: list[mem.Experience]) -> list[mem.Experience]:
    """Valued memories, the surest first (what one saw oneself before what one was told),
    the newest first among equally sure ones."""
    valued = [e for e in found if e.value is not None]
    return sorted(valued, key=lambda e: (-e.confidence, -e.minute, -e.id))
