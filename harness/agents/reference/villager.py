"""A routine villager: the shared components plus its routine (schedule, errands, replans)."""

from __future__ import annotations

from typing import Any

from harness.engine.contract import AgentSetup, Intent, Observation

from .agent import ReferenceBase
from .model.beliefs import Belief
from .planning import REQUEST
from .routine import Routine


class Villager(ReferenceBase):
    def __init__(self, ctx: AgentSetup) -> None:
        super().__init__(ctx, trace_needs=False)
        self.routine = Routine(
            ctx,
            self.planning,
            self.memory,
            self.beliefs,
            self.conversation,
            self.life,
            self.remember,
            self.nightly,
        )

    def components(self) -> dict[str, Any]:
        return {**super().components(), "routine": self.routine}

    def decide(self, now: int) -> list[Intent]:
        self.life.live_until(now, False)
        return self.routine.decide(now)

    def wake_at(self, now: int) -> int:
        return self.routine.wake_at(now)

    def arrived(self, place: str) -> None:
        self.routine.location = place

    def replan_for(self, belief: Belief, minute: int, eid: int) -> None:
        super().replan_for(belief, minute, eid)
        self.routine.replan_for(belief, minute, eid)
        self.routine.consider(belief, minute, eid)

    def action_result(self, obs: Observation) -> None:
        goal, self.planning.busy = self.planning.busy, None
        self.remember(
            obs,
            channel="did",
            subject=obs.subject,
            importance=0.3 if obs.ok else 0.5,
            valence=self.life.feeling(obs, True),
        )
        plan = self.planning.plans.get(goal or "")
        if plan is None:
            return
        if goal and goal.startswith(REQUEST):
            settled = self.planning.request_result(goal, bool(obs.ok))
            if settled is not None:  # it saw how it went: it brought the item, or did not
                self.conclude(obs, *settled)
            return
        self.routine.result(plan, bool(obs.ok), obs.minute, obs.event_id)
