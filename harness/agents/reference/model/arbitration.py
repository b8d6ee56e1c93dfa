"""Arbitration: which of an autonomous agent's candidates it takes up, and the commitment that
follows. Protected stances and situational rules veto before scoring; close calls are settled by
keyed noise (common random numbers)."""

from __future__ import annotations

from dataclasses import replace

from harness.engine.contract import Draws
from scenarios.persona import Persona
from scenarios.room import RoomKnowledge

from .autonomy import Candidate, Mind, is_night

ARBITRATION_NOISE = 0.15  # the seed's say in close calls (common random numbers)
RULE_PREFERENCE = 0.3  # what a matching situational rule adds to the action it prefers


def arbitrate(
    options: list[Candidate],
    persona: Persona,
    room: RoomKnowledge,
    mind: Mind,
    now: int,
    draws: Draws,
    agent: str,
) -> tuple[Candidate | None, list[tuple[Candidate, str]]]:
    """The best candidate no protected stance or situational rule forbids; and what was
    vetoed, with why. A matching rule's preference adds to a candidate's score.

    Close calls are settled by keyed noise. A commitment under way is not preempted before
    its minimum duration, except by a pressing need (hunger or exhaustion).
    """
    vetoed: list[tuple[Candidate, str]] = []
    allowed: list[Candidate] = []
    for c in options:
        stances = persona.vetoes(c.action, *(x for x in (c.item,) if x))
        situation = {
            "role": persona.role,
            "place": c.target,
            "object": c.item or "",
            "occasion": "night" if is_night(now, room) else "day",
        }
        if stances:
            vetoed.append((c, stances[0].id))
        elif c.action in persona.prohibitions(situation):
            vetoed.append((c, f"rule for {situation['occasion']} at {c.target}"))
        elif c.action in persona.preferences(situation):
            allowed.append(replace(c, score=c.score + RULE_PREFERENCE))
        else:
            allowed.append(c)
    if mind.committed_until is not None and now < mind.committed_until:
        allowed = [c for c in allowed if c.score >= 1.5 or c.action == mind.doing]

    def noisy(c: Candidate) -> float:
        return c.score + ARBITRATION_NOISE * (
            draws.uniform("arbitration", agent, now, c.action, c.target) - 0.5
        )

    allowed.sort(key=lambda c: (-noisy(c), c.action, c.target))
    return (allowed[0] if allowed else None), vetoed


def commit(mind: Mind, choice: Candidate, persona: Persona, now: int) -> Mind:
    floor = next((c.min_minutes for c in persona.commitments if c.action == choice.action), 0)
    return replace(mind, doing=choice.action, committed_until=now + floor if floor else None)
