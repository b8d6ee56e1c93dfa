"""The memory component: the agent's own episodic memory (one isolated namespace), written,
recalled, consolidated at night, every operation traced (`memory_ops`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.engine.contract import AgentSetup
from harness.engine.diagnostics import MemoryOp

from .context import Diagnostics
from .model import memory as mem

SUMMARY_AGE = 24 * 60  # experiences older than a day are summarised at night


class Memory:
    def __init__(self, ctx: AgentSetup, log: Diagnostics) -> None:
        self.ctx, self.log, self.name = ctx, log, ctx.name
        self.store = mem.Memory(ctx.name, int(ctx.policy["memory.capacity"]))
        self.keep_source = bool(ctx.policy["memory.keep_source"])  # the policy is fixed

    @property
    def experiences(self) -> Mapping[int, mem.Experience]:
        return self.store.experiences

    def get_state(self) -> dict[str, Any]:
        return self.store.to_json()

    def set_state(self, state: dict[str, Any]) -> None:
        self.store = mem.Memory.from_json(state)

    def write(
        self, minute: int, eid: int, **fields: Any
    ) -> tuple[mem.Experience, list[mem.Experience]]:
        """Write an experience (without its sources unless the policy keeps them); returns it
        and what capacity evicted."""
        if not self.keep_source:
            fields = {**fields, "told_by": None, "origin": None}
        store, name, rows = self.store, self.name, self.log.rows
        exp, evicted = mem.write(store, minute, eid, **fields)
        rows.append(memory_op(name, store, minute, eid, "write", exp))  # a row every write
        for e in evicted:
            rows.append(memory_op(name, store, minute, eid, "evict", e))
        return exp, evicted

    def recall(self, query: mem.Query, now: int, mood: float) -> list[mem.Recall]:
        """Retrieval as the agent uses it: traced (an empty recall too) and strengthening what
        came to mind."""
        recalled = mem.retrieve(self.store, query, now, self.ctx.policy, self.ctx.draws, mood)
        if not recalled:
            self.op(
                now,
                0,
                "retrieve",
                None,
                purpose=query.purpose,
                rank=None,
                relevant=None,
                subject=query.subject,
            )
        rows, name, store = self.log.rows, self.name, self.store
        size, capacity, purpose = len(store.experiences), store.capacity, query.purpose
        for rank, r in enumerate(recalled):  # self.op(...) by position: five a recall
            e = r.experience
            row = MemoryOp(
                now,
                0,
                name,
                "retrieve",
                e.id,
                e.owner,
                purpose,
                e.subject,
                rank,
                r.relevant,
                e.importance,
                size,
                capacity,
            )
            rows.append(row)
        mem.strengthen(self.store, [r.experience for r in recalled], now)
        return recalled

    def consolidate(
        self, now: int, on_summary: Callable[[mem.Experience], None]
    ) -> list[mem.Experience]:
        """The night's consolidation: old experiences summarised (each summary handed to
        `on_summary` as it is written), reflections drawn; returns what capacity evicted."""
        keep = bool(self.ctx.policy["memory.keep_source_on_summary"])
        summaries, merged = mem.summarise(self.store, now, 0, SUMMARY_AGE, keep, self.ctx.draws)
        for e in merged:
            self.op(now, 0, "summarise", e)
        for summary in summaries:
            self.op(now, 0, "write", summary)
            on_summary(summary)
        reflections, evicted = mem.reflect(self.store, now, 0)
        for r in reflections:
            self.op(now, 0, "reflect", r)
        for e in evicted:
            self.op(now, 0, "evict", e)
        return evicted

    def op(self, minute: int, eid: int, op: str, exp: mem.Experience | None, **extra: Any) -> None:
        self.log.add(memory_op(self.name, self.store, minute, eid, op, exp, **extra))


def memory_op(
    agent: str,
    store: mem.Memory,
    minute: int,
    eid: int,
    op: str,
    exp: mem.Experience | None,
    **extra: Any,
) -> MemoryOp:
    """The diagnostic row of one memory operation (on `exp`, if any) and the store's fill."""
    if exp is None:
        return MemoryOp(
            minute, eid, agent, op, size=len(store.experiences), capacity=store.capacity, **extra
        )
    if not extra:  # a write's or an eviction's row, the commonest: by position, no keywords
        return MemoryOp(
            minute,
            eid,
            agent,
            op,
            exp.id,
            exp.owner,
            None,  # purpose
            exp.subject,
            None,  # rank
            None,  # relevant
            exp.importance,
            len(store.experiences),
            store.capacity,
        )
    return MemoryOp(
        minute,
        eid,
        agent,
        op,
        experience_id=exp.id,
        experience_owner=exp.owner,
        subject=exp.subject,
        importance=exp.importance,
        size=len(store.experiences),
        capacity=store.capacity,
        **extra,
    )
