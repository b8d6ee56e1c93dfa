"""The life component: the agent's dynamic state (needs, mood, arousal, emotions, skill), brought
forward in closed form only when something happens, appraising each event once, narrowing
attention when aroused; hourly snapshots traced (`state`)."""

from __future__ import annotations

from typing import Any

from harness.engine.contract import AgentSetup, Observation
from harness.engine.diagnostics import StateSnapshot

from .context import Diagnostics
from .model import life
from .model.life.effects import MIN_SPAN

# what an hourly snapshot samples, in its rows' order (the needs first, where traced)
SAMPLED = ("valence", "arousal", "stress", *life.EMOTIONS)
NEEDS_SAMPLED = ("energy_deficit", "hunger_deficit", *SAMPLED)


class Life:
    def __init__(self, ctx: AgentSetup, log: Diagnostics, *, trace_needs: bool) -> None:
        self.ctx, self.log, self.persona = ctx, log, ctx.spec.persona  # who it is: fixed
        self.trace_needs = trace_needs  # energy and hunger are traced where they drive choices
        self.state = life.initial_state(ctx.spec.persona, ctx.start)
        self.attended: tuple[int, int] = (ctx.start, 0)  # (minute, observations taken in)

    def get_state(self) -> dict[str, Any]:
        return {"state": self.state.to_json(), "attended": list(self.attended)}

    def set_state(self, state: dict[str, Any]) -> None:
        self.state = life.LifeState.from_json(state["state"])
        self.attended = (state["attended"][0], state["attended"][1])

    def live_until(self, minute: int, asleep: bool) -> None:
        """Time composes: the state is brought forward in closed form only when needed, and
        a snapshot is traced at the first event of each hour (event-driven, not per tick)."""
        state = self.state
        if minute > state.last_minute:
            hour = state.last_minute // 60
            self.state = life.advance(state, self.persona, minute, asleep)
            if minute // 60 > hour:
                self._snapshot(minute)

    def attend(self, minute: int) -> bool:
        """Whether one more everyday observation this minute gets noticed."""
        seen_at, count = self.attended
        count = count + 1 if seen_at == minute else 1
        self.attended = (minute, count)
        # the span is never below MIN_SPAN: the first few of a minute need no arousal reading
        return count <= MIN_SPAN or count <= life.attention_span(self.state)

    def mood(self) -> float:
        return life.mood(self.state)

    def appraise(self, obs: Observation, goal_related: bool) -> None:
        """Each event once: what it means for the agent's goals moves mood and arousal."""
        self.state = life.apply_event(
            self.state,
            self.persona,
            self.appraisal(obs, goal_related),
            obs.event_id,
            obs.minute,
        )

    def feeling(self, obs: Observation, goal_related: bool) -> float:
        """How an experience of this event feels, -1..1 (its valence when written): what it
        does to one's goals. Mood-congruent recall reads it."""
        return float(self.appraisal(obs, goal_related).goal_impact)

    def appraisal(self, obs: Observation, goal_related: bool) -> Any:
        if obs.kind == "action_result":
            return life.appraise(
                "outcome",
                goal_related=True,
                caused_by="self",
                expected=bool(obs.ok),
                helps=bool(obs.ok),
            )
        return life.appraise(
            "news",
            goal_related=goal_related,
            caused_by="other" if obs.speaker else "object",
            expected=False,
        )

    def _snapshot(self, minute: int) -> None:
        s = self.state
        levels = life.emotion_levels(s)  # in EMOTIONS order, as SAMPLED names them
        values = [s.valence, s.arousal, life.stress(s, levels), *levels.values()]
        variables: tuple[str, ...] = SAMPLED
        if self.trace_needs:  # the needs first, where they drive choices
            values = [s.energy_deficit, s.hunger_deficit, *values]
            variables = NEEDS_SAMPLED
        # a third of them are zeros, which round(_, 6) keeps as they are (-0.0 too)
        rounded = tuple([round(value, 6) if value else value for value in values])
        # one record for the snapshot's rows (not one per variable)
        self.log.rows.append(StateSnapshot(minute, 0, self.ctx.name, variables, rounded))
