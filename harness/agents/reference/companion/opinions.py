"""Opinions (a background layer): the character's own judgements, seeded by its persona and
moved by what it hears, never turned over by one sentence; asked what it thinks, it shows only
its three best-founded, as its own view (never as something the person said).

An opinion (`Opinion`) has an id, a text, its support in -1..1 (for or against its text) and
how many lines or events moved it. A line that speaks for it (one of its `moved_by` words)
raises its support by at most STEP, one against lowers it; a single line never flips its sign.
What happens to the character moves it too, as the life core appraises it: each of its
unprompted messages, once answered or settled unanswered, is an event that helps or hinders
its goal of staying in touch, and moves the views `about` that part of the day by STEP times
the appraisal's goal impact (the same never-flip rule). How well founded an opinion is:
|support| grows with the lines and events behind it. Pure functions, and the component that
holds the views (`Opinions`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harness.engine.diagnostics import MemoryOp
from scenarios.dialogue import CompanionPersona

from ..context import Diagnostics
from ..model.life.appraisal import Appraisal, appraise
from .agenda import Plain, Sent
from .lessons import part_of_day

STEP = 0.15
SHOWN = 3
ASKED = re.compile(r"\bwhat do you think\b|\byour (opinion|take)\b")


@dataclass(frozen=True)
class Opinion(Plain):
    id: str
    text: str
    support: float  # -1..1: against or for its text
    events: int  # lines and events that moved it

    @property
    def founded(self) -> float:
        """How well founded: |support|, grown by the lines and events behind it."""
        return abs(self.support) * (1 + self.events)


def seeded(persona: CompanionPersona) -> list[Opinion]:
    return [Opinion(o.id, o.text, o.support, 0) for o in persona.opinions]


def _pushed(opinion: Opinion, push: float) -> Opinion:
    support = opinion.support
    new = max(-1.0, min(1.0, support + push))
    if support * new < 0:  # one line or event may weaken a view, never turn it over
        new = 0.0
    return Opinion(opinion.id, opinion.text, round(new, 6), opinion.events + (push != 0))


def moved(opinions: list[Opinion], persona: CompanionPersona, low: str) -> list[Opinion]:
    """The opinions after a line (its words, lowercase)."""
    seeds = {o.id: o for o in persona.opinions}
    return [
        _pushed(
            o,
            STEP
            * (
                any(w in low for w in seeds[o.id].moved_by)
                - any(w in low for w in seeds[o.id].moved_against)
            ),
        )
        for o in opinions
    ]


def message_outcome(answered: bool) -> Appraisal:
    """How the character appraises one of its unprompted messages once its fate is known: an
    answer helps its goal of staying in touch, silence hinders it (caused by the other, and
    expected either way: nothing threatening)."""
    return appraise("message", goal_related=True, caused_by="other", expected=True, helps=answered)


def by_outcomes(
    opinions: list[Opinion],
    persona: CompanionPersona,
    before: list[Sent],
    after: list[Sent],
) -> list[Opinion]:
    """The opinions after its message ledger went from `before` to `after` (the same
    messages, in the same order): each message newly answered or settled unanswered is
    appraised, and moves the views `about` the part of the day it was sent in."""
    about = {o.id: {p.value for p in o.about} for o in persona.opinions}
    out = opinions
    for old, new in zip(before, after, strict=False):
        if old.answered is not None or new.answered is None:
            continue
        impact = message_outcome(new.answered).goal_impact
        part = part_of_day(new.minute)
        out = [_pushed(o, STEP * impact) if part in about[o.id] else o for o in out]
    return out


def shown(opinions: list[Opinion]) -> str:
    """The three best-founded, in words, as its own view."""
    best = sorted(opinions, key=lambda o: (-o.founded, o.id))[:SHOWN]
    said = [
        f"I think {o.text}" if o.support >= 0 else f"I don't think {o.text}"
        for o in best
        if o.support
    ]
    return ("; ".join(said) + ".") if said else "I don't have much of a view on that yet."


def held(opinions: list[Opinion], minute: int, eid: int, agent: str) -> list[MemoryOp]:
    """What it holds when asked, as diagnostics (op `opinion`): each view's text, how well
    founded it is (`importance`) and how many lines moved it (`size`) — so the scorecard can
    check that the views it says are its best-founded."""
    return [
        MemoryOp(
            minute,
            eid,
            agent,
            "opinion",
            purpose=o.id,
            subject=o.text,
            importance=round(o.founded, 6),
            size=o.events,
        )
        for o in opinions
    ]


class Opinions:
    """The character's own views, seeded by its persona."""

    def __init__(self, persona: CompanionPersona, name: str, log: Diagnostics) -> None:
        self.persona, self.name, self.log = persona, name, log
        self.views = seeded(persona)

    def get_state(self) -> list[dict[str, Any]]:
        return [o.to_json() for o in self.views]

    def set_state(self, state: list[dict[str, Any]]) -> None:
        self.views = [Opinion.from_json(o) for o in state]

    def fared(self, before: list[Sent], after: list[Sent]) -> None:
        """Its messages' fates became known (the ledger went from `before` to `after`)."""
        self.views = by_outcomes(self.views, self.persona, before, after)

    def hear(self, low: str) -> None:
        """A line's words (lowercase) that may speak for or against a view."""
        self.views = moved(self.views, self.persona, low)

    def asked(self, minute: int, eid: int) -> str:
        """Asked what it thinks: the views it holds are traced, the best-founded said."""
        self.log.rows += held(self.views, minute, eid, self.name)
        return shown(self.views)
