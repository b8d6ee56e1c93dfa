"""The routine component (villagers): the day's schedule from the persona — moves, everyday
activities, errands planned the evening before from what retrieval brings to mind, replanned
when a confident belief blocks them, and a fallback when an errand fails on the spot. Where
else an errand can be done is what the agent remembers (its own knowledge, recalled), or what
the news said (a gathering moved to the park); an agent that recalls nowhere else keeps its
plan and may fail."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any

from harness.engine.contract import (
    AgentSetup,
    Channel,
    Intent,
    IntentKind,
    Observation,
    ObservationKind,
    Sense,
)
from scenarios import day_of

from .beliefs import Beliefs
from .context import NEVER
from .conversation import Conversation
from .life import Life
from .memory import Memory
from .model import memory as mem
from .model.beliefs import Belief
from .model.planning import (
    Plan,
    Slot,
    blocking,
    daily_schedule,
    displaced_errands,
    gathering_minute,
    known_places,
)
from .planning import Planning

KNOWN_PLACE_IMPORTANCE = 0.4  # where one can buy bread: useful, not memorable


class Routine:
    def __init__(
        self,
        ctx: AgentSetup,
        planning: Planning,
        memory: Memory,
        beliefs: Beliefs,
        conversation: Conversation,
        life: Life,
        remember: Callable[..., object],
        nightly: Callable[[int], None],
    ) -> None:
        self.ctx, self.planning, self.memory = ctx, planning, memory
        self.beliefs, self.conversation, self.life = beliefs, conversation, life
        self.remember = remember  # the agent's way to write an experience
        self.nightly = nightly  # the evening's consolidation, before tomorrow is planned
        spec = ctx.spec
        self.schedule: list[Slot] = daily_schedule(
            spec, ctx.draws, ctx.start, ctx.end, ctx.tick_minutes
        )
        self.errands = {e.id: e for e in spec.errands}
        self.cursor = 0
        self.fallback: Intent | None = None
        self.location: str = spec.home
        self.decided: list[str] = []  # gatherings the agent has made up its mind about
        self.gatherings: list[tuple[int, str]] = []  # (minute, goal) it means to go to
        self.displaced: list[str] = []  # errand goals ("errand@day") a weightier plan dropped
        for action, places in sorted(spec.knows_where.items()):  # what the agent knows at start
            for place in places:
                memory.write(
                    ctx.start,
                    0,
                    channel="seen",
                    subject=action,
                    value=place,
                    importance=KNOWN_PLACE_IMPORTANCE,
                )

    def get_state(self) -> dict[str, Any]:
        return {
            "cursor": self.cursor,
            "fallback": None if self.fallback is None else asdict(self.fallback),
            "location": self.location,
            "decided": list(self.decided),
            "gatherings": [list(g) for g in self.gatherings],
            "displaced": list(self.displaced),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.cursor, self.location = state["cursor"], state["location"]
        self.fallback = None if state["fallback"] is None else Intent(**state["fallback"])
        self.decided = list(state["decided"])
        self.gatherings = [(int(m), str(g)) for m, g in state["gatherings"]]
        self.displaced = list(state["displaced"])

    def decide(self, now: int) -> list[Intent]:
        planning = self.planning
        intents: list[Intent] = []
        if self.fallback is not None and planning.busy is None:
            intents.append(self.fallback)
            planning.busy, self.fallback = self.fallback.goal, None
        while self.cursor < len(self.schedule) and self.schedule[self.cursor].minute <= now:
            slot = self.schedule[self.cursor]
            self.cursor += 1
            intent = self._slot(slot, now)
            if intent is not None and planning.busy is None:
                intents.append(intent)
                planning.busy = intent.goal if intent.kind == "act" else None
        while self.gatherings and self.gatherings[0][0] <= now and planning.busy is None:
            _, goal = self.gatherings.pop(0)
            plan = planning.plans[goal]
            intents.append(
                Intent(IntentKind.ACT, plan.target, plan.action, plan.plan_id, plan.goal)
            )
            planning.busy = plan.goal
        if planning.busy is None:
            intents.extend(planning.request_steps(now))
        return intents

    def wake_at(self, now: int) -> int:
        """The next scheduled slot or request step; never before an action's result is in."""
        if self.planning.busy is not None:
            return NEVER
        if self.fallback is not None:
            return now
        # the earliest of the next slot, the requests' next steps and the next gathering
        wake = self.schedule[self.cursor].minute if self.cursor < len(self.schedule) else NEVER
        for start in self.planning.request_starts():
            wake = min(wake, start)
        if self.gatherings:
            wake = min(wake, self.gatherings[0][0])
        return max(now, wake)

    def replan_for(self, belief: Belief, minute: int, eid: int) -> None:
        """A new belief that blocks an errand's plan above the trigger changes it at once; a
        retraction sends the plans the withdrawn claim moved back to be made again."""
        if belief.sense == Sense.RETRACTS:
            self._reconsider(belief, minute)
            return
        planning = self.planning
        for goal, plan in sorted(planning.plans.items()):
            errand = self.errands.get(goal.split("@")[0])
            if errand is None or plan.reason == "fallback" or goal == planning.busy:
                continue
            if blocking([belief], (plan.target, *plan.via), plan.day, planning.trigger()) is None:
                continue
            # what else it holds counts too: told the ford is out after the bridge, it does
            # not go back over the bridge
            held = tuple(self.beliefs.current())
            alternative = self._elsewhere(errand, belief, plan.day, minute, {plan.target}, held)
            if alternative is None:
                continue
            planning.new(replace(plan, target=alternative, via=(), reason="replanned"), minute, eid)
            self.conversation.tell_group(errand, belief.proposition)

    def _reconsider(self, retraction: Belief, minute: int) -> None:
        """The errands' plans the news moved away from their own target are made again from
        what the agent now holds (the withdrawn claim is no longer current): back to the
        routine target, unless something else still blocks it."""
        if (
            retraction.value != "true"
            or retraction.status != "current"
            or retraction.confidence < self.planning.trigger()
        ):
            return
        for goal, plan in sorted(self.planning.plans.items()):
            errand = self.errands.get(goal.split("@")[0])
            if (
                errand is None
                or goal == self.planning.busy
                or plan.reason not in ("retrieved", "replanned")
                or plan.day < day_of(minute)
            ):
                continue
            self._plan_errand(errand, plan.day, minute)

    def consider(self, belief: Belief, minute: int, eid: int) -> None:
        """A confident new belief that a gathering will be held: the agent decides once whether
        to go - its extraversion is the chance - and if so plans to be there."""
        if (
            belief.sense != Sense.GATHERING
            or belief.value != "true"
            or belief.status != "current"
            or belief.confidence < self.planning.trigger()
            or belief.proposition in self.decided
        ):
            return
        self.decided.append(belief.proposition)
        at = gathering_minute(belief.object)
        chance = self.ctx.spec.persona.traits.extraversion
        if at is None or at <= minute:
            return
        if self.ctx.draws.uniform("attend", self.ctx.name, belief.proposition) >= chance:
            return
        day = day_of(at)
        plan = Plan(f"{belief.proposition}@{day}", day, "meet", belief.subject, 0, "invited")
        self.planning.new(plan, minute, eid)
        self.gatherings = sorted([*self.gatherings, (at, plan.goal)])
        meaning = self.beliefs.meanings.get(belief.proposition)
        self._displace(day, at, 0 if meaning is None else meaning.priority, minute, eid)

    def _displace(self, day: int, at: int, priority: int, minute: int, eid: int) -> None:
        """The gathering's plan outweighs the errands due at its hour: each is dropped for
        that day (not deferred: its hour is gone), and the drop is traced (`plans`)."""
        for errand in displaced_errands(self.ctx.spec, day, at, priority):
            goal = f"{errand.id}@{day}"
            if goal in self.displaced or goal == self.planning.busy:
                continue
            self.displaced.append(goal)
            self.planning.drop(goal, day, errand.action, errand.target, minute, eid)

    def result(self, plan: Plan, ok: bool, minute: int, eid: int) -> None:
        """An errand that failed on the spot falls back to an alternative, tried next."""
        errand = self.errands.get(plan.goal.split("@")[0])
        if ok or errand is None:
            return
        fallback = self._elsewhere(errand, None, plan.day, minute, {plan.target, errand.target})
        if fallback is not None:
            new = self.planning.new(
                replace(plan, target=fallback, via=(), reason="fallback"), minute, eid
            )
            self.fallback = Intent(IntentKind.ACT, fallback, new.action, new.plan_id, new.goal)

    def _plan_errand(self, errand: Any, day: int, now: int) -> None:
        """Tomorrow's plan sees only what retrieval returns for the plan's context."""
        related = errand.via if self.ctx.policy["retrieval.plan_context"] == "route" else ()
        recalled = self.memory.recall(
            mem.Query(errand.target, "plan", related), now, self.life.mood()
        )
        in_mind = self.beliefs.recalled(recalled)
        target, reason = errand.target, "routine"
        blocker = blocking(in_mind, (errand.target, *errand.via), day, self.planning.trigger())
        elsewhere = None
        if blocker is not None:
            elsewhere = self._elsewhere(errand, blocker, day, now, {errand.target}, tuple(in_mind))
        if elsewhere is not None and blocker is not None:
            target, reason = elsewhere, "retrieved"
            self.conversation.tell_group(errand, blocker.proposition)
        via = errand.via if target == errand.target else ()
        self.planning.new(
            Plan(f"{errand.id}@{day}", day, errand.action, target, 0, reason, via), now, 0
        )

    def _elsewhere(
        self,
        errand: Any,
        blocker: Belief | None,
        day: int,
        now: int,
        avoid: set[str],
        in_mind: tuple[Belief, ...] = (),
    ) -> str | None:
        """Another place for the errand: where the news says it moved, else the first place
        that comes to mind for its action and is not believed unusable; None when nothing
        does (retrieval may bring nothing back)."""
        if blocker is not None and blocker.sense == Sense.MOVED_TO and blocker.object not in avoid:
            return blocker.object
        recalled = self.memory.recall(mem.Query(errand.action, "replan"), now, self.life.mood())
        for place in known_places(recalled, errand.action):
            # the errand's own target is reached by its way (`via`), any other place directly
            way = (place, *errand.via) if place == errand.target else (place,)
            unusable = blocking(list(in_mind), way, day, self.planning.trigger())
            if place not in avoid and unusable is None:
                return place
        return None

    def _slot(self, slot: Slot, now: int) -> Intent | None:
        ctx = self.ctx
        if slot.kind == "plan":
            if slot.day > day_of(now):  # the evening plan for tomorrow: consolidate first
                self.nightly(now)
            for errand in ctx.spec.errands:
                if slot.day in errand.days and f"{errand.id}@{slot.day}" not in self.displaced:
                    self._plan_errand(errand, slot.day, now)
            return None
        if slot.kind == "errand":
            if f"{slot.errand}@{slot.day}" in self.displaced:
                return None  # a weightier plan has this hour
            plan = self.planning.plans.get(f"{slot.errand}@{slot.day}")
            if plan is None:  # no evening before (the first day): the routine plan
                errand = self.errands[slot.errand or ""]
                routine = Plan(
                    f"{errand.id}@{slot.day}",
                    slot.day,
                    errand.action,
                    errand.target,
                    0,
                    "routine",
                    errand.via,
                )
                plan = self.planning.new(routine, now, 0)
            return Intent(IntentKind.ACT, plan.target, plan.action, plan.plan_id, plan.goal)
        if slot.kind == "activity":
            if self.location == slot.place:
                importance = 0.1 + 0.2 * ctx.draws.uniform("activity", ctx.name, now)
                obs = Observation(ObservationKind.ACTIVITY, now, 0, Channel.DID, slot.place or "")
                self.remember(
                    obs, channel="did", subject=slot.place, importance=round(importance, 3)
                )
            return None
        return Intent(IntentKind.MOVE, slot.place or ctx.spec.home)
