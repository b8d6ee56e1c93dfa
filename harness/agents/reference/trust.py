"""The trust component: familiarity and trust per other agent and domain, moved only by an
independently observed outcome of what that agent said; every move traced (`trust`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.engine.contract import AgentSetup, Observation
from harness.engine.diagnostics import TrustChange

from .context import Diagnostics
from .model import memory as mem
from .model.trust import Relations, judge, met, trust_in


class Trust:
    def __init__(self, ctx: AgentSetup, log: Diagnostics) -> None:
        self.ctx, self.log = ctx, log
        self.relations = Relations()

    def get_state(self) -> dict[str, Any]:
        return self.relations.to_json()

    def set_state(self, state: dict[str, Any]) -> None:
        self.relations = Relations.from_json(state)

    def met(self, other: str) -> None:
        met(self.relations, other)

    def in_informant(self, informant: str | None) -> float:
        """How far what `informant` reports is believed (the prior for the unknown)."""
        prior = float(self.ctx.policy["trust.prior"])
        return trust_in(self.relations, informant, "reports_facts", prior)

    def keeps_secrets(self, other: str) -> float:
        """How far `other` is trusted to keep what it is told to itself."""
        prior = float(self.ctx.policy["trust.prior"])
        return trust_in(self.relations, other, "keeps_secrets", prior)

    def judge_informants(
        self,
        prop: str,
        value: str,
        experiences: Mapping[int, mem.Experience],
        minute: int,
        eid: int,
    ) -> None:
        """Seeing for oneself is the independent outcome that moves trust in who told us."""
        told = sorted(
            {
                (e.told_by, e.value)
                for e in experiences.values()
                if e.proposition == prop and e.told_by is not None and e.is_evidence
            }
        )
        for informant, said in told:
            self.judge(informant, prop, "reports_facts", said == value, minute, eid)

    def judge_secret_keepers(self, obs: Observation, told: Mapping[str, list[str]]) -> None:
        """Hearing our secret from an outsider means someone we told did not keep it."""
        prop = obs.meaning.proposition if obs.meaning else ""
        if obs.speaker in obs.audience:
            return
        for partner in sorted(told):
            if prop in told[partner] and partner != obs.speaker:
                self.judge(partner, prop, "keeps_secrets", False, obs.minute, obs.event_id)

    def judge(self, other: str, prop: str, domain: str, kept: bool, minute: int, eid: int) -> None:
        policy = self.ctx.policy
        new = judge(
            self.relations,
            other,
            f"{domain}:{prop}",
            domain,
            kept,
            float(policy["trust.prior"]),
            float(policy["trust.learning_rate"]),
        )
        if new is not None:
            reason = f"{'kept' if kept else 'broke'} word on {prop}"
            self.log.add(TrustChange(minute, eid, self.ctx.name, other, domain, new, reason))
