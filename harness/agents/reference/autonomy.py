"""The autonomy component (an agent on its own in a room): what it holds and believes of its
room, its sleep and commitments; choosing from needs, its project and practices, protected
stances vetoing first (traced as `plans` rows "rule conflict: ..."); learning from results."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.engine.contract import AgentSetup, Intent, IntentKind, Observation
from scenarios import day_of
from scenarios.room import RoomKnowledge

from .beliefs import Beliefs
from .life import Life
from .memory import Memory
from .model import autonomy, outcomes
from .model import memory as mem
from .model.arbitration import arbitrate, commit
from .model.planning import Plan
from .planning import Planning


class Autonomy:
    def __init__(
        self, ctx: AgentSetup, planning: Planning, life: Life, memory: Memory, beliefs: Beliefs
    ) -> None:
        self.ctx, self.planning, self.life = ctx, planning, life
        self.memory, self.beliefs = memory, beliefs
        if ctx.spec.room is None:
            raise ValueError(f"{ctx.name}: an agent on its own needs its room (spec.room)")
        self.room: RoomKnowledge = ctx.spec.room
        known = {f"{s.holder}|{s.resource}": s.count for s in ctx.spec.knows_stock}
        self.mind = autonomy.initial_mind(known, self.room)

    def get_state(self) -> dict[str, Any]:
        return self.mind.to_json()

    def set_state(self, state: dict[str, Any]) -> None:
        self.mind = autonomy.Mind.from_json(state)

    @property
    def asleep(self) -> bool:
        return self.mind.asleep_until is not None

    def wake_at(self, now: int) -> int:
        """Ask again when it wakes, or right away."""
        return max(now, self.mind.asleep_until or now)

    def goal_related(self, subject: str) -> bool:
        """News about its light touches its goals (the project needs it after dark)."""
        return subject == self.room.light.fixture

    def on_news(self, obs: Observation) -> None:
        """Being told (or seeing) that its light flickers makes the light suspect."""
        if (
            obs.meaning is not None
            and obs.meaning.subject == self.room.light.fixture
            and obs.value == "true"
        ):
            self.mind = replace(self.mind, fixture=autonomy.FLICKERING)

    def on_sound(self, place: str, minute: int) -> None:
        self.mind = outcomes.on_sound(self.mind, place, minute)

    def result(self, plan: Plan, obs: Observation) -> None:
        self.mind, self.life.state = outcomes.on_result(
            self.mind,
            self.life.state,
            self.ctx.spec.persona,
            self.room,
            plan.action,
            plan.target,
            plan.item,
            bool(obs.ok),
            obs.detail,
            obs.minute,
            obs.event_id,
        )

    def leads(self, resource: str, now: int) -> tuple[str, ...]:
        """Where memory says a missing material is kept: only what retrieval brings to mind
        counts, so a note read hours ago helps only if it comes back when it is needed."""
        recalled = self.memory.recall(mem.Query(resource, "search"), now, self.life.mood())
        return self.beliefs.places_kept(recalled, resource)

    def decide(self, now: int) -> list[Intent]:
        """On its own: choose from needs, the project and practices; stances veto first."""
        ctx, persona, room, planning = self.ctx, self.ctx.spec.persona, self.room, self.planning
        mind = self.mind
        if mind.asleep_until is not None:
            if now < mind.asleep_until:
                return []
            mind = replace(mind, asleep_until=None)
        if planning.busy is not None:
            self.mind = mind
            return []
        missing = autonomy.unsourced(mind, room)
        if missing is not None:
            mind = autonomy.with_leads(mind, missing, self.leads(missing, now))
        slip = ctx.draws.uniform("practice", ctx.name, day_of(now))
        options, mind = autonomy.candidates(mind, self.life.state, persona, room, now, slip)
        choice, vetoed = arbitrate(options, persona, room, mind, now, ctx.draws, ctx.name)
        for option, stance in vetoed:
            planning.traced(
                None,
                option.reason,
                day_of(now),
                option.action,
                option.target,
                f"rule conflict: {stance}",
                now,
                0,
            )
        if choice is None:
            self.mind = mind
            return []
        mind = commit(mind, choice, persona, now)
        if choice.action == "sleep":  # nights differ: the seed moves waking by up to ±40 min
            jitter = int(ctx.draws.uniform("sleep", ctx.name, now) * 9) * 10 - 40
            minutes = max(20, (choice.minutes or 60) + jitter)
            choice = replace(choice, minutes=minutes)
            mind = replace(mind, asleep_until=now + minutes)
        practice = next(
            (p.id for p in persona.practices if choice.reason.startswith(f"practice {p.id}")),
            None,
        )
        if practice is not None:
            mind = replace(mind, practiced={**mind.practiced, practice: day_of(now)})
        self.mind = mind
        auto = Plan(
            f"auto:{choice.reason}",
            day_of(now),
            choice.action,
            choice.target,
            0,
            "needs",
            item=choice.item,
        )
        plan = planning.new(auto, now, 0)
        planning.busy = plan.goal
        return [
            Intent(
                IntentKind.ACT,
                choice.target,
                choice.action,
                plan.plan_id,
                plan.goal,
                item=choice.item,
                minutes=choice.minutes,
            )
        ]
