"""Introspection: once a night, between 23:00 and 02:00, the character looks back — settles
the fate of its unanswered messages, lets what became of them move its opinions, and draws
lessons and habits from its ledger, each traced once per change of its gate. What it draws is
never written back as fact; a kept habit's limit makes a check-in wait (`quiet`)."""

from __future__ import annotations

from typing import Any

from harness.engine.contract import AgentSetup
from harness.engine.diagnostics import MemoryOp
from scenarios.clock import MINUTES_PER_DAY, day_of

from ..context import Diagnostics
from . import lessons as les
from .lessons import LessonNote
from .opinions import Opinions
from .recall import CharacterMemory
from .talk import Talk

WINDOW = (23 * 60, 2 * 60)  # the window for looking back, across midnight


class Introspection:
    def __init__(
        self,
        setup: AgentSetup,
        log: Diagnostics,
        memory: CharacterMemory,
        talk: Talk,
        opinions: Opinions,
    ) -> None:
        self.name, self.log = setup.name, log
        self.memory, self.talk, self.opinions = memory, talk, opinions
        self.min_evidence = int(setup.policy["lessons.min_evidence"])
        self.min_counter = int(setup.policy["lessons.min_counter"])
        self.gates: dict[str, str] = {}  # lesson → its gate and evidence when last noted
        self.looked_back = 0  # the last night (its day) introspected

    def get_state(self) -> dict[str, Any]:
        return {"gates": dict(self.gates), "looked_back": self.looked_back}

    def set_state(self, state: dict[str, Any]) -> None:
        self.gates = dict(state["gates"])
        self.looked_back = state["looked_back"]

    def look_back(self, now: int, heard: list[int]) -> None:
        """Once a night, in its window (`heard`: when the people it talks with wrote)."""
        clock, night = now % MINUTES_PER_DAY, day_of(now - WINDOW[1])
        if not (clock >= WINDOW[0] or clock < WINDOW[1]) or night <= self.looked_back:
            return
        self.looked_back = night
        self.log.add(
            MemoryOp(
                now,
                0,
                self.name,
                "introspect",
                purpose="night",
                size=len(self.memory.store.experiences),
            )
        )
        settling = self.talk.settle(now)
        self.opinions.fared(settling, self.talk.ledger)
        ledger = self.talk.ledger
        drawn = les.draw(ledger, self.min_evidence, self.min_counter) + les.habits(
            ledger, heard, self.min_evidence, self.min_counter
        )
        noted, self.gates = les.news(drawn, self.gates)
        for x in noted:
            self.log.add(
                LessonNote(
                    now,
                    0,
                    self.name,
                    x["lesson"],
                    x["kind"],
                    x["text"],
                    x["evidence"],
                    x["counter"],
                    x["gate"],
                )
            )

    def quiet(self, now: int, heard: list[int]) -> bool:
        """Whether a habit it keeps says its messages go unanswered at this part of the day."""
        return les.quiet_part(
            self.gates, self.talk.ledger, heard, now, self.min_evidence, self.min_counter
        )
