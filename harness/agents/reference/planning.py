"""The planning component: the agent's plans (one per goal), what is under way, and the
player's requests — planned, hurried when the source closes early, carried out step by step or
declined by a protected stance, and how each went worked out from the agent's own results.
Every new plan is traced (`plans`)."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from harness.engine.contract import AgentSetup, Intent, PlanStage, Request
from harness.engine.diagnostics import PlanNote
from harness.engine.lifecycle import transition

from .context import Diagnostics
from .model.beliefs import Belief
from .model.planning import PENDING, Plan, hurrying, request_plan, request_step

REQUEST = "request:"  # the goal prefix of a request's plan
DISPLACED = "displaced"  # the reason traced when a weightier plan drops an errand for its day


class Planning:
    def __init__(self, ctx: AgentSetup, log: Diagnostics) -> None:
        self.ctx, self.log = ctx, log
        self.plans: dict[str, Plan] = {}
        self.requests: dict[str, Request] = {}
        self.about: dict[str, str] = {}  # request id → the proposition the ask is about
        self.busy: str | None = None  # the goal whose action is under way
        self.next_plan_id = 1
        self._places: frozenset[str] | None = None  # `places()`, until a plan changes

    def get_state(self) -> dict[str, Any]:
        return {
            "plans": {k: asdict(p) for k, p in self.plans.items()},
            "requests": {k: asdict(r) for k, r in self.requests.items()},
            "about": dict(self.about),
            "busy": self.busy,
            "next_plan_id": self.next_plan_id,
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.plans = {k: Plan(**{**v, "via": tuple(v["via"])}) for k, v in state["plans"].items()}
        self.requests = {k: Request(**v) for k, v in state["requests"].items()}
        self.about = dict(state["about"])
        self.busy, self.next_plan_id = state["busy"], state["next_plan_id"]
        self._places = None

    def new(self, plan: Plan, minute: int, eid: int) -> Plan:
        """Adopt a plan for its goal (replacing any before), numbered and traced."""
        plan = replace(plan, plan_id=self.next_plan_id)
        self.next_plan_id += 1
        self.plans[plan.goal] = plan
        self._places = None
        self.traced(
            plan.plan_id, plan.goal, plan.day, plan.action, plan.target, plan.reason, minute, eid
        )
        return plan

    def drop(self, goal: str, day: int, action: str, target: str, minute: int, eid: int) -> None:
        """Give up a goal's plan for its day (an errand a weightier plan displaced), traced
        with the plan it was (or, not yet planned, what the errand would have done)."""
        plan = self.plans.pop(goal, None)
        self._places = None
        if plan is not None:
            action, target = plan.action, plan.target
        plan_id = None if plan is None else plan.plan_id
        self.traced(plan_id, goal, day, action, target, DISPLACED, minute, eid)

    def traced(
        self,
        plan_id: int | None,
        goal: str,
        day: int,
        action: str,
        target: str,
        reason: str,
        minute: int,
        eid: int,
    ) -> None:
        self.log.add(
            PlanNote(minute, eid, self.ctx.name, plan_id, goal, day, action, target, reason)
        )

    def places(self) -> frozenset[str]:
        """Every place a plan goes to or through: news about them touches the agent's goals.
        Kept until a plan changes (asked several times for each claim the agent hears)."""
        if self._places is None:
            plans = self.plans.values()
            self._places = frozenset({p.target for p in plans} | {v for p in plans for v in p.via})
        return self._places

    def trigger(self) -> float:
        return float(self.ctx.policy["replan.trigger_confidence"])

    # --- requests ---------------------------------------------------------------------------
    def on_request(
        self,
        request: Request,
        beliefs: list[Belief],
        minute: int,
        eid: int,
        about: str | None = None,
    ) -> None:
        self.requests[request.request_id] = request
        if about is not None:
            self.about[request.request_id] = about
        plan = request_plan(request, self.ctx.spec.persona, beliefs, minute, self.trigger())
        self.new(plan, minute, eid)

    def hurry_for(self, belief: Belief, minute: int, eid: int) -> None:
        """A new belief that a pending request's source closes early makes the agent set off
        now (if it passes the replanning trigger)."""
        for goal, plan in sorted(self.plans.items()):
            if (
                goal.startswith(REQUEST)
                and plan.stage is PlanStage.FETCH
                and plan.source
                and plan.start is not None
                and plan.start > minute
                and hurrying([belief], plan.source, plan.day, self.trigger())
            ):
                self.new(replace(plan, start=minute, reason="hurried"), minute, eid)

    def request_steps(self, now: int) -> list[Intent]:
        if not self.requests:
            return []  # never asked anything: no request has a plan (most agents, most days)
        due = request_step(self.plans, self.requests, now)
        if due is None:
            return []
        plan, intent = due
        self.busy = plan.goal  # a decline too: how it went is in its result
        return [intent]

    def request_result(self, goal: str, ok: bool) -> tuple[str, str] | None:
        """Advance a request's plan by its step's result; when that settles the request,
        (the proposition it is about, "true" if the agent did what was asked else "false") —
        the agent's own conclusion from its own result (None: unsettled, or about nothing)."""
        plan = self.plans[goal]
        declined = plan.action == "decline"
        last = declined or plan.stage is PlanStage.CARRY_OUT
        following = PlanStage.DONE if last else PlanStage.CARRY_OUT
        self._advance(plan, following if ok else PlanStage.FAILED)
        about = self.about.get(goal.removeprefix(REQUEST))
        if about is None or not (last or not ok):
            return None
        return about, "true" if ok and not declined else "false"

    def _advance(self, plan: Plan, stage: PlanStage) -> None:
        self.plans[plan.goal] = replace(plan, stage=transition(plan.stage, stage))
        self._places = None

    def request_starts(self) -> list[int]:
        """When pending requests' next steps are due."""
        if not self.requests:
            return []  # never asked anything: no request has a plan
        return [
            p.start
            for g, p in self.plans.items()
            if g.startswith(REQUEST) and p.stage in PENDING and p.start is not None
        ]
