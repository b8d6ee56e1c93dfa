"""The LLM agent's day: routine moves without asking; at each errand the model chooses what to
do and where, among the actions and places offered; a player's request is fetched, then done.

Which memories the model sees before an errand is the `prompt.act` template's business: the
steady one shows only the plan, the responsive one what retrieval brings to mind for the
errand's target (and its route, with `retrieval.plan_context: route`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from harness.agents.reference.context import Diagnostics
from harness.agents.reference.model import memory as mem
from harness.agents.reference.model.planning import Slot
from harness.engine.contract import AgentSetup, Intent, IntentKind, Observation, Request
from harness.engine.diagnostics import PlanNote

from . import phrasing
from .asking import Asking
from .calls import Purpose

NEVER = 1 << 40
SET_OFF_BEFORE = 120  # minutes before a request's deadline the agent sets off
STAY = "stay"


class Errands:
    def __init__(
        self,
        setup: AgentSetup,
        schedule: list[Slot],
        places: tuple[str, ...],
        ask: Asking,
        memories: Callable[[mem.Query, int], str],
        log: Diagnostics,
    ) -> None:
        self.setup, self.schedule, self.places = setup, schedule, places
        self.ask, self.memories, self.log = ask, memories, log
        self.errands = {e.id: e for e in setup.spec.errands}
        self.location: str = setup.spec.home
        self.requests: dict[str, Request] = {}
        self.steps: dict[str, int] = {}  # request id → 0 fetch, 1 carry out, 2 done
        self.busy: str | None = None  # the goal whose action is under way
        self.cursor = 0
        self.next_plan_id = 1

    def planned_places(self) -> set[str]:
        return {p for e in self.errands.values() for p in (e.target, *e.via)}

    def decide(self, now: int) -> list[Intent]:
        intents: list[Intent] = []
        while self.cursor < len(self.schedule) and self.schedule[self.cursor].minute <= now:
            slot = self.schedule[self.cursor]
            self.cursor += 1
            if self.busy is not None:
                continue
            if slot.kind == "move":
                intents.append(Intent(IntentKind.MOVE, slot.place or self.setup.spec.home))
            elif slot.kind == "errand":
                intent = self._errand(self.errands[slot.errand or ""], slot.day, now)
                if intent is not None:
                    intents.append(intent)
                    self.busy = intent.goal
        if self.busy is None:
            intents.extend(self._request_step(now))
        return intents

    def _errand(self, errand: Any, day: int, now: int) -> Intent | None:
        template = self.ask.template("act")
        memories = ""
        if "memories" in template.placeholders():
            related = errand.via if self.setup.policy["retrieval.plan_context"] == "route" else ()
            memories = self.memories(mem.Query(errand.target, "plan", related), now)
        plan = f"{errand.action} at the {errand.target}"
        if errand.via:
            plan += ", by way of the " + " and the ".join(errand.via)
        actions = [errand.action, STAY]
        places = [errand.target, *(p for p in self.places if p != errand.target)]
        reply = self.ask(
            Purpose.ACT,
            phrasing.act_schema(actions, places),
            now,
            0,
            (errand.id, day),
            lambda r: r["action"] == STAY,
            plan=plan,
            place=self.location,
            memories=memories,
            actions=", ".join(actions),
            places=", ".join(places),
        )
        action, target = (
            (reply["action"], reply["place"]) if reply else (errand.action, errand.target)
        )
        goal = f"{errand.id}@{day}"
        plan_id = self.next_plan_id
        self.next_plan_id += 1
        self.log.add(
            PlanNote(
                now,
                0,
                self.setup.name,
                plan_id,
                goal,
                day,
                action,
                target,
                "model" if reply else "unparsable reply: the plan as it was",
            )
        )
        return None if action == STAY else Intent(IntentKind.ACT, target, action, plan_id, goal)

    def _request_step(self, now: int) -> list[Intent]:
        for rid in sorted(self.requests):
            r, step = self.requests[rid], self.steps[rid]
            if step >= 2 or now < r.deadline - SET_OFF_BEFORE:
                continue
            self.busy = f"request:{rid}"
            if step == 0:
                return [Intent(IntentKind.ACT, r.source, "pick_up", None, self.busy, rid, r.item)]
            return [Intent(IntentKind.ACT, r.place, r.action, None, self.busy, rid, r.item)]
        return []

    def request(self, request: Request) -> None:
        self.requests[request.request_id] = request
        self.steps[request.request_id] = 0

    def result(self, obs: Observation) -> None:
        goal, self.busy = self.busy, None
        if goal and goal.startswith("request:"):
            rid = goal.split(":", 1)[1]
            self.steps[rid] = self.steps[rid] + 1 if obs.ok else 2

    def wake_at(self, now: int) -> int:
        if self.busy is not None:
            return NEVER
        upcoming = [self.schedule[self.cursor].minute] if self.cursor < len(self.schedule) else []
        upcoming += [
            r.deadline - SET_OFF_BEFORE for rid, r in self.requests.items() if self.steps[rid] < 2
        ]
        return max(now, min(upcoming, default=NEVER))

    def get_state(self) -> dict[str, Any]:
        return {
            "location": self.location,
            "busy": self.busy,
            "cursor": self.cursor,
            "next_plan_id": self.next_plan_id,
            "steps": dict(self.steps),
            "requests": {k: asdict(r) for k, r in self.requests.items()},
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.location, self.busy = state["location"], state["busy"]
        self.cursor, self.next_plan_id = state["cursor"], state["next_plan_id"]
        self.steps = dict(state["steps"])
        self.requests = {k: Request(**v) for k, v in state["requests"].items()}
