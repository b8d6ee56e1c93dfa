"""`commitment_recall`: promises kept at the right time (the agent's turns, not its word)."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, clock, lines
from ._rows import eq

EARLY, LATE = 30, 120  # minutes around the promised moment that still count


def commitment_recall(episode: Episode) -> float | None:
    """Promises asked for (lines of kind promise; a later one about the same thing replaces an
    earlier one) for which the agent said something about the promised thing to the one who
    asked, from EARLY minutes before the promised moment to LATE minutes after ÷ promises."""
    asked = [p for p in lines(episode) if p.kind == "promise"]
    if not asked:
        return None
    # a later promise about the same thing replaces an earlier one (the last one is kept)
    last = {(p.agent, p.speaker, p.proposition): i for i, p in enumerate(asked)}
    asked = [asked[i] for i in sorted(last.values())]
    start, per_tick = clock(episode)
    turns = agent_turns(episode)
    kept = 0
    for p in asked:
        due = start + int(p.due) * per_tick
        kept += any(
            eq(t.agent, p.agent)
            and eq(t.listener, p.speaker)
            and eq(t.proposition, p.proposition)
            and t.at is not None
            and due - EARLY <= t.at <= due + LATE
            for t in turns
        )
    return kept / len(asked)


METRIC = register(
    Metric(
        name="commitment_recall",
        direction="max",
        range=(0.0, 1.0),
        definition="share of promises asked for that the agent acted on in words to the asker "
        "within 30 minutes before to 2 hours after the promised moment",
        internal=False,
        fn=commitment_recall,
    )
)
