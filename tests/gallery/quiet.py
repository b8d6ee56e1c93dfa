"""The gallery's quiet agents: what a scorecard pays an agent that never says a word (and one
that answers every question "yes")."""

from __future__ import annotations

from harness.engine.contract import Answer

from ._base import Villager


class Silent(Villager):
    """A perfect record it acts on (errands replanned around known blocks, gatherings, the
    requests it can carry out) and perfect answers - but it never says a word."""

    replans = True
    fulfils = True
    declines = "never"

    def answer(self, proposition: str, now: int) -> Answer:
        return self.perfect_answer(proposition)


class Idle(Villager):
    """Stays home, does nothing, says nothing, answers "I don't know"."""

    moves = False


class Hoarder(Villager):
    """Remembers everything and answers perfectly, tells nothing, and never does more than
    its routine and errands as written (no replanning, no requests)."""

    def answer(self, proposition: str, now: int) -> Answer:
        return self.perfect_answer(proposition)


class Decliner(Silent):
    """The silent agent, but it declines every request it gets, whatever its persona."""

    fulfils = False
    declines = "all"


class YesMan(Villager):
    """Follows its routine in silence and answers every question "true", certain, naming the
    alphabetically first villager it knows as source and origin."""

    def answer(self, proposition: str, now: int) -> Answer:
        guess = min(self.s["names"])
        return Answer("true", "certain", guess, guess)
