"""The scenario's words for each proposition, as the character last heard them: who or what it
is about, its predicate and the phrase that says it. Replies and reminders put a value into
these words; the character never makes up its own vocabulary."""

from __future__ import annotations

from typing import NamedTuple

from harness.engine.contract import Meaning

from . import words


class Wording(NamedTuple):
    """How one proposition is said: its subject, its predicate and the scenario's phrase (None:
    the predicate's own words)."""

    subject: str | None
    predicate: str | None
    phrase: str | None


class Vocabulary:
    def __init__(self) -> None:
        self.wordings: dict[str, Wording] = {}  # by proposition

    def get_state(self) -> dict[str, list[str | None]]:
        return {prop: list(w) for prop, w in self.wordings.items()}

    def set_state(self, state: dict[str, list[str | None]]) -> None:
        self.wordings = {prop: Wording(*w) for prop, w in state.items()}

    def learn(self, meaning: Meaning) -> None:
        self.wordings[meaning.proposition] = Wording(
            meaning.subject, meaning.predicate, meaning.phrase
        )

    def _wording(self, prop: str) -> tuple[str, str, str | None]:
        # a proposition never heard (or heard without words) is named by its own id
        subject, predicate, phrase = self.wordings.get(prop, Wording(prop, prop, None))
        return subject or prop, predicate or prop, phrase

    def meaning(self, prop: str) -> Meaning:
        """The proposition as it says it to a partner."""
        subject, predicate, phrase = self._wording(prop)
        return Meaning(prop, subject, predicate, "", phrase=phrase)

    def say(self, prop: str, value: str | None) -> str:
        """A value of the proposition in the scenario's words: 'your exam is on thursday'."""
        subject, predicate, phrase = self._wording(prop)
        return words.say(phrase, subject, predicate, value)
