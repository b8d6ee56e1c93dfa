"""`commitment_recall`: promises kept at the right time (the agent's turns, not its word)."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, clock, lines

EARLY, LATE = 30, 120  # minutes around the promised moment that still count


def commitment_recall(episode: Episode) -> float | None:
    """Promises asked for (lines of kind promise; a later one about the same thing replaces an
    earlier one) for which the agent said something about the promised thing to the one who
    asked, from EARLY minutes before the promised moment to LATE minutes after ÷ promises."""
    asked = lines(episode)
    asked = asked[asked["kind"].eq("promise")]
    if asked.empty:
        return None
    asked = asked.drop_duplicates(["agent", "speaker", "proposition"], keep="last")
    start, per_tick = clock(episode)
    turns = agent_turns(episode)
    kept = 0
    for p in asked.itertuples():
        due = start + int(p.due) * per_tick
        said = turns[
            turns["agent"].eq(p.agent)
            & turns["listener"].eq(p.speaker)
            & turns["proposition"].eq(p.proposition)
            & turns["at"].between(due - EARLY, due + LATE)
        ]
        kept += not said.empty
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
