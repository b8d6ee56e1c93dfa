"""An agent on its own (the room): the shared components plus autonomy — it chooses what to do
from its needs, its project and its practices instead of following a routine."""

from __future__ import annotations

from typing import Any

from harness.engine.contract import AgentSetup, Intent, Observation

from .agent import ReferenceBase
from .autonomy import Autonomy


class AutonomousAgent(ReferenceBase):
    def __init__(self, ctx: AgentSetup) -> None:
        super().__init__(ctx, trace_needs=True)  # needs drive its choices: traced
        self.autonomy = Autonomy(ctx, self.planning, self.life, self.memory, self.beliefs)

    def components(self) -> dict[str, Any]:
        return {**super().components(), "autonomy": self.autonomy}

    def decide(self, now: int) -> list[Intent]:
        self.life.live_until(now, self.asleep())
        return self.autonomy.decide(now)

    def wake_at(self, now: int) -> int:
        if self.planning.busy is not None:
            return 1 << 40  # an action's result comes first
        return self.autonomy.wake_at(now)

    def asleep(self) -> bool:
        return self.autonomy.asleep

    def goal_related(self, subject: str) -> bool:
        return super().goal_related(subject) or self.autonomy.goal_related(subject)

    def on_news(self, obs: Observation) -> None:
        self.autonomy.on_news(obs)

    def heard(self, obs: Observation) -> None:
        self.autonomy.on_sound(obs.subject, obs.minute)

    def action_result(self, obs: Observation) -> None:
        goal, self.planning.busy = self.planning.busy, None
        plan = self.planning.plans.get(goal or "")
        if plan is None:
            return
        self.remember(obs, channel="did", subject=obs.subject, importance=0.3 if obs.ok else 0.5)
        self.autonomy.result(plan, obs)
