"""Self-report: the reference agent, behaving byte for byte as itself, with what it reports about
its own memory rewritten (docs/agents.md: "nothing it reports about itself is trusted")."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.agents.reference import reference_agent
from harness.engine.contract import AgentSetup, Answer, Claim, Observation
from harness.engine.diagnostics import MemoryOp


class _Relabelled:
    """The reference agent, behaving byte for byte as itself, with its diagnostic rows
    rewritten by `rows` before the harness records them."""

    policy_surface = reference_agent.policy_surface  # type: ignore[attr-defined]

    def __init__(self, setup: AgentSetup) -> None:
        self.inner = reference_agent(setup)
        self.name = setup.name
        self.wrote = False  # whether the fake row has been reported (FakeMemoryWrite)

    def observe(self, obs: Observation) -> None:
        self.inner.observe(obs)

    def decide(self, now: int) -> list[Any]:
        return self.inner.decide(now)

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        return self.inner.converse(partner, partner_groups, now)

    def answer(self, proposition: str, now: int) -> Answer:
        return self.inner.answer(proposition, now)

    def get_state(self) -> dict[str, Any]:
        return {"inner": self.inner.get_state(), "wrote": self.wrote}

    def set_state(self, state: dict[str, Any]) -> None:
        self.inner.set_state(state["inner"])
        self.wrote = state["wrote"]

    def wake_at(self, now: int) -> int:
        return self.inner.wake_at(now)

    def drain_diagnostics(self) -> list[Any]:
        return self.rows(self.inner.drain_diagnostics())

    def rows(self, rows: list[Any]) -> list[Any]:
        return rows


class RelabelledMemory(_Relabelled):
    """The reference agent whose memory rows report every retrieval as relevant."""

    def rows(self, rows: list[Any]) -> list[Any]:
        return [
            replace(r, relevant=True) if isinstance(r, MemoryOp) and r.op == "retrieve" else r
            for r in rows
        ]


class FakeMemoryWrite(_Relabelled):
    """The reference agent whose memory rows are withheld and replaced by one fake write:
    memory operations but no retrieval (memory_noise 0.0, where it weighs)."""

    def rows(self, rows: list[Any]) -> list[Any]:
        kept = [r for r in rows if not isinstance(r, MemoryOp)]
        ops = [r for r in rows if isinstance(r, MemoryOp)]
        if ops and not self.wrote:
            self.wrote = True
            first = ops[0]
            kept.append(MemoryOp(first.minute, first.event_id, self.name, "write", 1, self.name))
        return kept
