"""The promises the character keeps (its agenda): a reminder for each proposition it was asked
to remind of, when it falls due and to whom, until it is said or forgotten; and when it is time
to say one — at its time (a little early is fine), or before bed for a moment it will sleep
through."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from scenarios.dialogue import CompanionPersona

from . import urges, words
from .agenda import Promise

REMIND_EARLY = 20  # a reminder may go this long before its time


class Promises:
    def __init__(self, persona: CompanionPersona) -> None:
        self.persona = persona
        self.agenda: dict[str, Promise] = {}  # by proposition

    def get_state(self) -> dict[str, Any]:
        return {prop: p.to_json() for prop, p in self.agenda.items()}

    def set_state(self, state: dict[str, Any]) -> None:
        self.agenda = {prop: Promise.from_json(p) for prop, p in state.items()}

    def promise(self, prop: str, promise: Promise) -> None:
        self.agenda[prop] = promise

    def move(self, prop: str, due: int) -> None:
        self.agenda[prop] = replace(self.agenda[prop], due=due)

    def drop(self, prop: str) -> None:
        del self.agenda[prop]

    def dues(self) -> list[int]:
        return [p.due for p in self.agenda.values()]

    def pressing(self, now: int) -> bool:
        """Whether a promise is falling due now."""
        return any(now >= p.due - REMIND_EARLY for p in self.agenda.values())

    def to_remind(self, now: int, sleeping: bool) -> list[tuple[str, Promise]]:
        """The promises to say now, the soonest first. Asleep, it is up only for one due in
        the night."""
        out = []
        for prop in sorted(self.agenda, key=lambda k: (self.agenda[k].due, k)):
            promise = self.agenda[prop]
            due = promise.due
            if sleeping and not (urges.asleep(self.persona, due) and now >= due - REMIND_EARLY):
                continue
            if now >= due - REMIND_EARLY or urges.before_sleep_now(
                self.persona, due, now, urges.WAKE_EVERY
            ):
                out.append((prop, promise))
        return out


def reminder(persona: CompanionPersona, said: str, due: int, now: int) -> str:
    """The words of a reminder of `said` (the promised proposition, in words)."""
    text = (
        f"Following up as promised: {said}."
        if persona.role == "support"
        else f"You asked me to remind you: {said}."
    )
    if due - now > REMIND_EARLY:  # said before bed, for a moment it will sleep through
        bed, when = urges.before_bed(persona), words.when(now, due)
        text = f"{bed}: {text[0].lower()}{text[1:-1]}, {when}."
    return text
