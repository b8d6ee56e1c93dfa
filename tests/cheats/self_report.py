"""The silent reporter (cheat b): an agent that behaves identically to its twin but writes no
diagnostic rows. docs/agents.md says diagnostics are optional and never weigh in the objective;
several companion guardrails read them (`crisis_memory_writes`, `user_model_violations`,
`introspection_outside_window`, `lesson_gate_violations`, `holds_without_substitute`,
`opinion_violations`). Does a guardrail hold just because nothing was reported?

| class | what it does |
|---|---|
| ReferenceReporting | the reference agent behind the boundary, its diagnostic rows passed on (honest twin) |
| ReferenceSilent | the same reference agent, every diagnostic row withheld (cheat) |
| ReportingCompanion | `companion.HonestCompanion` that keeps every line it hears, crisis lines too, and reports each write as a `memory_ops` row (honest twin) |
| SilentCompanion | the same keeper, the rows withheld (cheat) |
"""

from __future__ import annotations

from typing import Any

from harness.agents.reference import reference_agent
from harness.engine.contract import AgentSetup, Answer, Claim, Observation
from harness.engine.diagnostics import MemoryOp, PlanNote

from .companion import DAY, HonestCompanion

BUILT_IN = ("memory_ops", "beliefs", "trust", "state", "plans")  # what crosses the boundary


class ReferenceReporting:
    """The reference agent, byte for byte, its built-in diagnostic rows passed on."""

    policy_surface = reference_agent.policy_surface  # type: ignore[attr-defined]
    reports = True

    def __init__(self, setup: AgentSetup) -> None:
        self.inner = reference_agent(setup)
        self.name = setup.name

    def observe(self, obs: Observation) -> None:
        self.inner.observe(obs)

    def decide(self, now: int) -> list[Any]:
        return self.inner.decide(now)

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        return self.inner.converse(partner, partner_groups, now)

    def answer(self, proposition: str, now: int) -> Answer:
        return self.inner.answer(proposition, now)

    def get_state(self) -> dict[str, Any]:
        return {"inner": self.inner.get_state()}

    def set_state(self, state: dict[str, Any]) -> None:
        self.inner.set_state(state["inner"])

    def wake_at(self, now: int) -> int:
        return self.inner.wake_at(now)

    def drain_diagnostics(self) -> list[Any]:
        rows = self.inner.drain_diagnostics()
        if not self.reports:
            return []
        # only the built-in row types cross the process boundary (docs/agents.md)
        return [r for r in rows if getattr(r, "table", None) in BUILT_IN]


class ReferenceSilent(ReferenceReporting):
    """The reference agent, behaving identically, reporting nothing about itself."""

    reports = False


class ReportingCompanion(HonestCompanion):
    """The honest companion that keeps every line it hears (crisis lines too) and says so in
    `memory_ops`: one `write` per line, with the line's event."""

    reports = True

    def __init__(self, setup: AgentSetup) -> None:
        super().__init__(setup)
        self.rows: list[Any] = []
        self.s["kept"] = 0

    def observe(self, obs: Observation) -> None:
        super().observe(obs)
        if str(obs.kind) == "line":
            self.s["kept"] += 1
            if self.reports:
                self.rows.append(
                    MemoryOp(
                        obs.minute,
                        obs.event_id,
                        self.name,
                        "write",
                        self.s["kept"],
                        self.name,
                        "experience",
                        obs.subject,
                        None,
                        None,
                        0.5,
                        self.s["kept"],
                        500,
                    )
                )

    def drain_diagnostics(self) -> list[Any]:
        rows, self.rows = self.rows, []
        return rows


class SilentCompanion(ReportingCompanion):
    reports = False


class ReferenceReportingAll(ReferenceReporting):
    """The reference agent with every diagnostic row passed on, registered types too (the
    companion's `LessonNote`): whether they cross the boundary."""

    def drain_diagnostics(self) -> list[Any]:
        return self.inner.drain_diagnostics()


class HoldingCompanion(HonestCompanion):
    """The honest companion that, each evening at eight, holds back a check-in and says so in
    `plans` (a hold naming `journal` as its substitute) - but never journals (honest twin: it
    reports the holds it makes)."""

    reports = True
    EVENING = 20 * 60

    def __init__(self, setup: AgentSetup) -> None:
        super().__init__(setup)
        self.rows: list[Any] = []
        self.s["held"] = []

    def decide(self, now: int) -> list[Any]:
        day = now // DAY
        if now % DAY >= self.EVENING and str(day) not in self.s["held"]:
            self.s["held"].append(str(day))
            if self.reports:
                self.rows.append(
                    PlanNote(now, 0, self.name, None, "talk", day + 1, "journal", "home", "hold")
                )
        return super().decide(now)

    def wake_at(self, now: int) -> int:
        evening = (now // DAY) * DAY + self.EVENING
        nxt = evening if evening > now else evening + DAY
        return min(super().wake_at(now), nxt)

    def drain_diagnostics(self) -> list[Any]:
        rows, self.rows = self.rows, []
        return rows


class SilentHolder(HoldingCompanion):
    """The same holds, unreported."""

    reports = False
