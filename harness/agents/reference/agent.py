"""What every composition of the reference agent shares (design §2): taking in what it
perceives and is told, talking, answering probes, and its state as the map of its components'
states.

It meets the harness only through the contract. Its own state changes happen in `observe` and
`decide`, which the tick loop calls at tick boundaries; `answer` is a read, so a probe leaves
`state_hash(agent)` unchanged. Every component round-trips through plain JSON.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.engine.contract import (
    AgentSetup,
    Answer,
    Claim,
    DiagnosticRow,
    Intent,
    Modality,
    Observation,
)
from harness.engine.diagnostics import MemoryOp

from .beliefs import Beliefs
from .context import FIRST_HAND, Diagnostics
from .conversation import Conversation
from .life import Life
from .memory import Memory
from .model import memory as mem
from .model.beliefs import MODALITY_WEIGHT, Belief
from .model.planning import commits
from .planning import Planning
from .trust import Trust

# what passes the attention filter: everyday sights, and each claim said to the agent (the
# claims of one chat come in the same minute). First-hand news, results and requests always do.
ATTENDED = ("arrival", "chat", "claim")


class ReferenceBase:
    """The components both compositions have; a composition adds its own and decides."""

    def __init__(self, ctx: AgentSetup, *, trace_needs: bool) -> None:
        self.ctx, self.name = ctx, ctx.name
        self.log = Diagnostics()
        self.memory = Memory(ctx, self.log)
        self.beliefs = Beliefs(ctx, self.log)
        self.trust = Trust(ctx, self.log)
        self.planning = Planning(ctx, self.log)
        self.conversation = Conversation(
            ctx, self.beliefs, self.memory, self.trust, self.planning.places
        )
        self.life = Life(ctx, self.log, trace_needs=trace_needs)

    def components(self) -> dict[str, Any]:
        return {
            "memory": self.memory,
            "beliefs": self.beliefs,
            "trust": self.trust,
            "conversation": self.conversation,
            "planning": self.planning,
            "life": self.life,
        }

    # --- the contract ------------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        self.life.live_until(obs.minute, self.asleep())
        if obs.kind in ATTENDED and not self._attends(obs):
            return  # high arousal narrows attention: what is peripheral passes unnoticed
        if obs.kind in ("notice", "claim"):
            self._take_in(obs)
            self._appraise(obs)
        elif obs.kind == "arrival":
            self.arrived(obs.subject)
            self.remember(
                obs, channel="seen", subject=obs.subject, importance=0.1, company=obs.company
            )
        elif obs.kind == "chat":
            self.trust.met(obs.subject)
            self.remember(obs, channel="heard", subject=obs.subject, importance=0.1)
        elif obs.kind == "action_result":
            self._appraise(obs)
            self.action_result(obs)
        elif obs.kind == "sound":
            self.heard(obs)
        elif obs.kind == "request" and obs.request is not None:
            self.remember(obs, channel="heard", subject=obs.request.place, importance=0.8)
            about = None
            if obs.meaning is not None:  # what it is about; how it goes is for the agent to see
                self.beliefs.meanings.setdefault(obs.meaning.proposition, obs.meaning)
                about = obs.meaning.proposition
            beliefs = list(self.beliefs.held.values())
            self.planning.on_request(obs.request, beliefs, obs.minute, obs.event_id, about)

    def decide(self, now: int) -> list[Intent]:
        raise NotImplementedError

    def wake_at(self, now: int) -> int:
        raise NotImplementedError

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        return self.conversation.converse(partner, partner_groups, now)

    def answer(self, proposition: str, now: int) -> Answer:
        """What comes to mind when asked: the belief is told only if retrieval about its topic
        brings back an experience of it (a read - nothing strengthened, nothing traced - so
        the answer leaves the agent as it was, and forgetting shows)."""
        meaning = self.beliefs.meanings.get(proposition)
        if meaning is None:
            return Answer(None, None, None)
        query = mem.Query(meaning.subject, "answer", proposition=proposition)
        recalled = mem.retrieve(
            self.memory.store, query, now, self.ctx.policy, self.ctx.draws, self.life.mood()
        )
        if not any(r.experience.proposition == proposition for r in recalled):
            return Answer(None, None, None)
        return self.beliefs.answer(proposition)

    def get_state(self) -> dict[str, Any]:
        return {name: c.get_state() for name, c in self.components().items()}

    def set_state(self, state: dict[str, Any]) -> None:
        for name, component in self.components().items():
            component.set_state(state[name])
        self.log.drain()  # what construction wrote (its knowledge) was traced by the saved run

    def drain_diagnostics(self) -> list[DiagnosticRow]:
        return self.log.drain()

    # --- what a composition fills in -------------------------------------------------------
    def asleep(self) -> bool:
        return False

    def arrived(self, place: str) -> None:
        """It reached `place` (a composition that keeps track of where it is overrides)."""

    def heard(self, obs: Observation) -> None:
        """Something audible happened at a place."""

    def action_result(self, obs: Observation) -> None:
        raise NotImplementedError

    def goal_related(self, subject: str) -> bool:
        return subject in self.planning.places()

    def replan_for(self, belief: Belief, minute: int, eid: int) -> None:
        self.planning.hurry_for(belief, minute, eid)

    def on_news(self, obs: Observation) -> None:
        """After news about a proposition is taken in and appraised."""

    # --- shared flows ------------------------------------------------------------------------
    def _attends(self, obs: Observation) -> bool:
        """Whether the agent takes this in. Past the minute's attention span (narrower when
        aroused) only what is central gets through - a claim about a place in its own plans, or
        one that commits it - and what is missed is traced as a `missed` memory operation
        (never written)."""
        subject = obs.meaning.subject if obs.meaning is not None else obs.subject
        within = self.life.attend(obs.minute)  # counts it, central or not
        if within or (obs.kind == "claim" and (self.goal_related(subject) or commits(obs.meaning))):
            return True
        self.log.add(
            MemoryOp(
                obs.minute, obs.event_id, self.name, "missed", purpose=obs.kind, subject=subject
            )
        )
        return False

    def remember(self, obs: Observation, **fields: Any) -> mem.Experience:
        exp, evicted = self.memory.write(obs.minute, obs.event_id, **fields)
        self.beliefs.forget(evicted, obs.minute, obs.event_id)
        return exp

    def nightly(self, now: int) -> None:
        """Consolidation: summaries, reflections, and beliefs whose time has passed."""
        evicted = self.memory.consolidate(now, lambda s: self.beliefs.rebase(s, now))
        self.beliefs.forget(evicted, now, 0)
        self.beliefs.outdate(now)

    def _importance(self, obs: Observation) -> float:
        """Rule-based appraisal: first-hand news matters more, and news touching one's plans
        or making a plan that outweighs a standing errand (a gathering with a priority: a
        callback promised, not a party one may skip)."""
        base = (
            0.7
            if obs.channel in FIRST_HAND
            else 0.3 + 0.3 * MODALITY_WEIGHT.get(obs.modality or "rumor", 0.4)
        )
        meaning = obs.meaning
        if meaning is not None and (meaning.subject in self.planning.places() or commits(meaning)):
            base += 0.2
        if obs.privacy == "private":
            base += 0.1
        return round(min(base, 1.0), 6)

    def conclude(self, obs: Observation, proposition: str, value: str) -> None:
        """A first-hand belief the agent draws from its own action's result (how the request
        it served went): taken in as news it gave itself."""
        meaning = self.beliefs.meanings[proposition]
        self._take_in(replace(obs, meaning=meaning, value=value, modality=Modality.CERTAIN))

    def _take_in(self, obs: Observation) -> None:
        meaning = obs.meaning
        assert meaning is not None and obs.value is not None
        self.beliefs.meanings.setdefault(meaning.proposition, meaning)
        origin = None
        if obs.speaker is not None:
            origin = obs.speaker if obs.stated_source in (None, "self") else obs.stated_source
        exp = self.remember(
            obs,
            channel=obs.channel,
            subject=meaning.subject,
            importance=self._importance(obs),
            proposition=meaning.proposition,
            value=obs.value,
            modality=obs.modality or "certain",
            told_by=obs.speaker,
            origin=origin,
            privacy=obs.privacy,
            audience=obs.audience,
            valence=self.life.feeling(obs, self.goal_related(meaning.subject)),
        )
        # of a quantity that changes, an informant who told an older value was not wrong then
        if obs.channel in FIRST_HAND and not meaning.changes:
            self.trust.judge_informants(
                meaning.proposition, obs.value, self.memory.experiences, obs.minute, obs.event_id
            )
        elif obs.privacy == "private":
            self.trust.judge_secret_keepers(obs, self.conversation.told)
        trust = self.trust.in_informant(exp.told_by)
        before = self.beliefs.get(meaning.proposition)
        new = self.beliefs.take_in(exp, meaning, trust, obs.minute, obs.event_id)
        if new is not None and meaning.changes and (before is None or before.value != new.value):
            self.conversation.changed(meaning.proposition)  # the new value is news to all
        if new is not None:
            self.replan_for(new, obs.minute, obs.event_id)

    def _appraise(self, obs: Observation) -> None:
        subject = obs.meaning.subject if obs.meaning else obs.subject
        self.life.appraise(obs, self.goal_related(subject))
        if obs.kind != "action_result":
            self.on_news(obs)
