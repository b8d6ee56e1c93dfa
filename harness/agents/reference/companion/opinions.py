"""Opinions (a background layer): the character's own judgements, seeded by its persona and
moved by what it hears, never turned over by one sentence; asked what it thinks, it shows only
its three best-founded, as its own view (never as something the person said).

An opinion is `[id, text, support, events]`: support in -1..1 (for or against its text) and
how many lines moved it. A line that speaks for it (one of its `moved_by` words) raises its
support by at most STEP, one against lowers it; a single line never flips its sign. How well
founded an opinion is: |support| grows with the lines behind it. Pure functions.
"""

from __future__ import annotations

import re
from typing import Any

from harness.engine.diagnostics import MemoryOp
from scenarios.dialogue import CompanionPersona

STEP = 0.15
SHOWN = 3
ASKED = re.compile(r"\bwhat do you think\b|\byour (opinion|take)\b")


def seeded(persona: CompanionPersona) -> list[list[Any]]:
    return [[o.id, o.text, o.support, 0] for o in persona.opinions]


def moved(opinions: list[list[Any]], persona: CompanionPersona, low: str) -> list[list[Any]]:
    """The opinions after a line (its words, lowercase)."""
    seeds = {o.id: o for o in persona.opinions}
    out = []
    for oid, text, support, events in opinions:
        o = seeds[oid]
        push = STEP * (any(w in low for w in o.moved_by) - any(w in low for w in o.moved_against))
        new = max(-1.0, min(1.0, support + push))
        if support * new < 0:  # one line may weaken a view, never turn it over
            new = 0.0
        out.append([oid, text, round(new, 6), events + (push != 0)])
    return out


def founded(opinion: list[Any]) -> float:
    return abs(opinion[2]) * (1 + opinion[3])


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
