"""Opinions (a background layer): the character's own judgements, seeded by its persona and
moved by what it hears, never turned over by one sentence; asked what it thinks, it shows only
its three best-founded, as its own view (never as something the person said).

An opinion is `[id, text, support, events]`: support in -1..1 (for or against its text) and
how many lines or events moved it. A line that speaks for it (one of its `moved_by` words)
raises its support by at most STEP, one against lowers it; a single line never flips its sign.
What happens to the character moves it too, as the life core appraises it: each of its
unprompted messages, once answered or settled unanswered, is an event that helps or hinders
its goal of staying in touch, and moves the views `about` that part of the day by STEP times
the appraisal's goal impact (the same never-flip rule). How well founded an opinion is:
|support| grows with the lines and events behind it. Pure functions.
"""

from __future__ import annotations

import re
from typing import Any

from harness.engine.diagnostics import MemoryOp
from scenarios.dialogue import CompanionPersona

from ..model.life.appraisal import Appraisal, appraise
from .lessons import part_of_day

STEP = 0.15
SHOWN = 3
ASKED = re.compile(r"\bwhat do you think\b|\byour (opinion|take)\b")


def seeded(persona: CompanionPersona) -> list[list[Any]]:
    return [[o.id, o.text, o.support, 0] for o in persona.opinions]


def _pushed(opinion: list[Any], push: float) -> list[Any]:
    oid, text, support, events = opinion
    new = max(-1.0, min(1.0, support + push))
    if support * new < 0:  # one line or event may weaken a view, never turn it over
        new = 0.0
    return [oid, text, round(new, 6), events + (push != 0)]


def moved(opinions: list[list[Any]], persona: CompanionPersona, low: str) -> list[list[Any]]:
    """The opinions after a line (its words, lowercase)."""
    seeds = {o.id: o for o in persona.opinions}
    return [
        _pushed(
            o,
            STEP
            * (
                any(w in low for w in seeds[o[0]].moved_by)
                - any(w in low for w in seeds[o[0]].moved_against)
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
    opinions: list[list[Any]],
    persona: CompanionPersona,
    before: list[list[Any]],
    after: list[list[Any]],
) -> list[list[Any]]:
    """The opinions after its message ledger went from `before` to `after` (rows `[tick,
    minute, answered]`, in the same order): each message newly answered or settled unanswered
    is appraised, and moves the views `about` the part of the day it was sent in."""
    about = {o.id: {p.value for p in o.about} for o in persona.opinions}
    out = opinions
    for old, new in zip(before, after, strict=False):
        if old[2] is not None or new[2] is None:
            continue
        impact = message_outcome(bool(new[2])).goal_impact
        part = part_of_day(new[1])
        out = [_pushed(o, STEP * impact) if part in about[o[0]] else o for o in out]
    return out


def founded(opinion: list[Any]) -> float:
    support: float = opinion[2]
    events: int = opinion[3]
    return abs(support) * (1 + events)


def shown(opinions: list[list[Any]]) -> str:
    """The three best-founded, in words, as its own view."""
    best = sorted(opinions, key=lambda o: (-founded(o), o[0]))[:SHOWN]
    said = [f"I think {o[1]}" if o[2] >= 0 else f"I don't think {o[1]}" for o in best if o[2]]
    return ("; ".join(said) + ".") if said else "I don't have much of a view on that yet."


def held(opinions: list[list[Any]], minute: int, eid: int, agent: str) -> list[MemoryOp]:
    """What it holds when asked, as diagnostics (op `opinion`): each view's text, how well
    founded it is (`importance`) and how many lines moved it (`size`) — so the scorecard can
    check that the views it says are its best-founded."""
    return [
        MemoryOp(
            minute,
            eid,
            agent,
            "opinion",
            purpose=o[0],
            subject=o[1],
            importance=round(founded(o), 6),
            size=o[3],
        )
        for o in opinions
    ]
