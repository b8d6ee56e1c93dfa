"""Speaking first (motivation): an urge speaks only if it is strong enough to pass the
policy's hold and the day's talk budget allows it; a held urge always comes with a quiet
substitute to do instead. The urge to check in grows with a silence since the player last
wrote, and each check-in left unanswered makes it wait longer: quiet, not absent."""

from __future__ import annotations

from typing import Any

from harness.engine.contract import AgentSetup, Intent, IntentKind
from harness.engine.diagnostics import PlanNote
from scenarios.clock import day_of
from scenarios.dialogue import Urge

from ..context import Diagnostics
from ..model.life import motivation as mot
from . import urges
from .agenda import Message
from .promises import REMIND_EARLY
from .talk import Talk

PLAYER = "player"  # the one a companion checks in with


class Initiative:
    def __init__(self, setup: AgentSetup, log: Diagnostics, talk: Talk) -> None:
        assert setup.spec.companion is not None
        self.ctx, self.log, self.talk = setup, log, talk
        self.name, self.persona, self.home = setup.name, setup.spec.companion, setup.spec.home
        self.hold_at = float(setup.policy["companion.hold_strength"])
        self.motivation = mot.Motivation(budget=int(setup.policy["companion.talk_budget"]))
        self.last_contact: dict[str, int] = {}  # by speaker: when they last wrote
        self.last_urge = setup.start  # when it last wanted to check in
        self.unanswered = 0  # check-ins since the player last wrote
        self.heard: list[int] = []  # when the people it talks with wrote (for its habits)

    def get_state(self) -> dict[str, Any]:
        return {
            "motivation": self.motivation.to_json(),
            "last_contact": dict(self.last_contact),
            "last_urge": self.last_urge,
            "unanswered": self.unanswered,
            "heard": list(self.heard),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.motivation = mot.Motivation.from_json(state["motivation"])
        self.last_contact = dict(state["last_contact"])
        self.last_urge = state["last_urge"]
        self.unanswered = state["unanswered"]
        self.heard = list(state["heard"])

    def wrote(self, speaker: str, now: int) -> int | None:
        """A line from `speaker`: the silence ends. Returns how long it had lasted (None: the
        first line from them)."""
        gap = None if speaker not in self.last_contact else now - self.last_contact[speaker]
        self.last_contact[speaker] = now
        self.heard.append(now)
        self.unanswered = 0
        return gap

    def silent_too_long(self, now: int) -> bool:
        """Whether the player has been silent long enough for a check-in: a persona's gap,
        doubled for each check-in left unanswered (up to three)."""
        if self.persona.role != "companion" or PLAYER not in self.last_contact:
            return False
        silence = now - max(self.last_contact[PLAYER], self.last_urge)
        wait: int = self.persona.gap_minutes * 2 ** min(self.unanswered, 3)
        return silence >= wait

    def check_in(self, now: int, text: str, dues: list[int]) -> list[Intent]:
        """Write first to the player after a silence (`text`: what it says)."""
        self.unanswered += 1
        self.last_urge = now
        # the urge grows with the silence: full after eight of the persona's gaps
        gone = now - self.last_contact[PLAYER]
        strength = min(1.0, gone / (8 * self.persona.gap_minutes))
        left = mot.remaining(self.motivation, now)
        owed = urges.owed_today(self.persona, Urge.CHECK_IN, dues, now, REMIND_EARLY)
        if urges.postpone(self.persona, Urge.CHECK_IN, left, owed):
            strength = 0.0  # it gives way to a promise still due today: held
        return self.urge(PLAYER, strength, Message(None, None, text), now)

    def urge(
        self,
        partner: str,
        strength: float,
        message: Message,
        now: int,
        urge: Urge = Urge.CHECK_IN,
    ) -> list[Intent]:
        """Speak if the urge passes the hold and the budget allows; else hold, with a
        substitute (returned as the intent to do instead). A promise may break a fresh hold
        if the persona says so (`may_preempt: [hold]`)."""
        fading = mot.hold_strength(self.motivation, now)
        if urge is Urge.PROMISE and "hold" in self.persona.may_preempt:
            fading = 0.0
        if strength >= max(self.hold_at, fading):
            self.motivation, allowed = mot.spend(self.motivation, now)
            if allowed:
                self.talk.send(partner, message, now)
                return []
        substitute = self.ctx.draws.choice(self.persona.substitutes, "substitute", self.name, now)
        self.motivation = mot.hold(self.motivation, substitute, now)
        self.log.add(
            PlanNote(now, 0, self.name, None, "talk", day_of(now), substitute, self.home, "hold")
        )
        return [Intent(IntentKind.ACT, self.home, action=substitute)]
