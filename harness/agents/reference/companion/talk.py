"""What the character will say and what became of what it said first: its outbox (the lines
for each partner's next turn) and its ledger (its unprompted messages, answered or not: what
lessons and opinions are drawn from)."""

from __future__ import annotations

from typing import Any

from harness.engine.contract import AgentSetup, Claim, Meaning, Modality

from . import lessons as les
from . import words
from .agenda import Message, Sent
from .vocabulary import Vocabulary

CHAT = Meaning("", "", "", "")  # a turn about no tracked proposition


class Talk:
    def __init__(self, setup: AgentSetup) -> None:
        assert setup.spec.companion is not None
        self.ctx, self.persona = setup, setup.spec.companion
        self.outbox: dict[str, list[Message]] = {}  # by partner: said at its next turn
        self.ledger: list[Sent] = []  # its unprompted messages and their fate

    def get_state(self) -> dict[str, Any]:
        return {
            "outbox": {who: [m.to_json() for m in said] for who, said in self.outbox.items()},
            "ledger": [s.to_json() for s in self.ledger],
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.outbox = {
            who: [Message.from_json(m) for m in said] for who, said in state["outbox"].items()
        }
        self.ledger = [Sent.from_json(s) for s in state["ledger"]]

    def reply(
        self,
        partner: str,
        prop: str | None,
        value: str | None,
        text: str,
        offered: int | None = None,
    ) -> None:
        """A reply for the partner's next turn; one that breaks the style falls back to a plain
        sound (and offers no time)."""
        if words.style_problems(text, self.persona.max_words, self.persona.forbidden):
            text, offered = "Mm.", None
        self.outbox.setdefault(partner, []).append(Message(prop, value, text, offered))

    def send(self, partner: str, message: Message, now: int) -> None:
        """An unprompted message: said at the partner's next turn, and its fate kept."""
        self.outbox.setdefault(partner, []).append(message)
        self.ledger.append(Sent((now - self.ctx.start) // self.ctx.tick_minutes, now))

    def claims(self, partner: str, vocabulary: Vocabulary) -> list[Claim]:
        """What it says at this turn with `partner`, each line in the scenario's words."""
        out = []
        for m in self.outbox.pop(partner, []):
            meaning = CHAT if m.proposition is None else vocabulary.meaning(m.proposition)
            out.append(
                Claim(
                    meaning, m.value or "", Modality.CERTAIN, "self", text=m.text, offered=m.offered
                )
            )
        return out

    def answered(self, now: int) -> list[Sent]:
        """A line came in: the latest open message within reach is answered. Returns the ledger
        as it was before (for what the answer does to its opinions)."""
        before, self.ledger = self.ledger, les.answered(self.ledger, now)
        return before

    def settle(self, now: int) -> list[Sent]:
        """Messages unanswered too long are settled as unanswered; the ledger before, returned."""
        before, self.ledger = self.ledger, les.settle(self.ledger, now)
        return before
