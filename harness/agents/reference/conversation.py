"""The conversation component: what the agent tells whom, the day's talk budget and the hold on
wanting to speak, and the group news a changed group plan makes urgent."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from harness.engine.contract import AgentSetup, Claim
from scenarios import day_of

from .beliefs import Beliefs
from .memory import Memory
from .model import life
from .model import memory as mem
from .model.conversation import (
    Discretion,
    Usefulness,
    news_for,
    news_usefulness,
    phrase,
    tellable,
    usefulness,
)
from .trust import Trust


class Conversation:
    def __init__(
        self,
        ctx: AgentSetup,
        beliefs: Beliefs,
        memory: Memory,
        trust: Trust,
        places: Callable[[], Collection[str]] = frozenset,
    ) -> None:
        self.ctx, self.beliefs, self.memory, self.trust = ctx, beliefs, memory, trust
        self.places = places  # the places the agent's own plans use
        self.told: dict[str, list[str]] = {}  # partner → propositions told
        self.group_news: list[str] = []
        self.motivation = life.Motivation(
            int(ctx.policy["motivation.talk_budget"]), day_of(ctx.start)
        )

    def get_state(self) -> dict[str, Any]:
        return {
            "told": {k: list(v) for k, v in self.told.items()},
            "group_news": list(self.group_news),
            "motivation": self.motivation.to_json(),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.told = {k: list(v) for k, v in state["told"].items()}
        self.group_news = list(state["group_news"])
        self.motivation = life.Motivation.from_json(state["motivation"])

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        """Fresh, salient news for this partner, within the sharing and privacy rules.

        Wanting to speak is not speaking: news held back (by chance or by the day's talk
        budget) leaves a hold that fades over ~20 minutes and makes the next chance likelier;
        the agent listens instead meanwhile. Holds replace each other, never add up.
        """
        ctx, policy = self.ctx, self.ctx.policy
        already = self.told.get(partner, [])
        for p, b in self.beliefs.held.items():  # a loop, not any(...): asked at every chat
            if tellable(p, b, partner, already):
                break
        else:
            return []  # nothing it could tell: no need to weigh privacy or usefulness
        urgent: set[str] = set()  # group news, for a group mate: looked at only if there is some
        if self.group_news and not set(ctx.spec.groups).isdisjoint(partner_groups):
            urgent = set(self.group_news)
        candidates = news_for(
            self.beliefs.held,
            self.memory.experiences,
            partner,
            already,
            urgent,
            self._discretion(partner) if policy["sharing.respect_privacy"] else None,
            self._usefulness(partner),
        )
        if not candidates:
            return []
        urge = float(policy["sharing.proactive"]) + life.hold_strength(self.motivation, now)
        if not urgent and ctx.draws.uniform("share", ctx.name, partner, now) >= urge:
            self.motivation = life.hold(self.motivation, "listen", now)
            return []
        claims = []
        for b, privacy, audience in candidates[: int(policy["sharing.claims_per_chat"])]:
            self.motivation, allowed = life.spend(self.motivation, now)
            if not allowed:  # the day's budget is spent: hold the rest back
                self.motivation = life.hold(self.motivation, "listen", now)
                break
            meaning = self.beliefs.meanings[b.proposition]
            claims.append(phrase(b, meaning, privacy, audience, policy))
            self.told.setdefault(partner, []).append(b.proposition)
            # retelling is real use: what it rests on is rehearsed (and keeps its source longer)
            support = [
                self.memory.experiences[i] for i in b.support if i in self.memory.experiences
            ]
            mem.strengthen(self.memory.store, support, now)
        return claims

    def changed(self, proposition: str) -> None:
        """A quantity it holds took a new value: telling it the old one was not telling this."""
        for told in self.told.values():
            while proposition in told:
                told.remove(proposition)

    def _usefulness(self, partner: str) -> Usefulness | None:
        threshold = float(self.ctx.policy["sharing.usefulness_threshold"])
        if threshold <= 0:
            return None  # everything is worth telling: no need to weigh it
        meanings = self.beliefs.meanings
        before = self.trust.relations.familiarity.get(partner, 0) - 1  # this chat counts 1
        of_subject = usefulness(
            {m.subject for m in meanings.values()},
            partner,
            self.memory.experiences,
            self.places(),
            before,
        )
        return Usefulness(threshold, news_usefulness(meanings, of_subject))

    def _discretion(self, partner: str) -> Discretion:
        return Discretion(
            float(self.ctx.policy["sharing.privacy_threshold"]),
            self.trust.relations.familiarity.keys(),  # a view: whom it knows, at once
            {p: m.subject for p, m in self.beliefs.meanings.items()},
            self.trust.keeps_secrets(partner),
        )

    def tell_group(self, errand: Any, proposition: str) -> None:
        """By policy, a changed group plan is news for the group at the next meeting."""
        if (
            self.ctx.policy["replan.notify_group"]
            and errand.group
            and proposition not in self.group_news
        ):
            self.group_news.append(proposition)
