"""`preference_uptake`: a liking the person stated comes back in what the agent says first."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, lines, restated
from ._rows import eq
from ._words import carries


def preference_uptake(episode: Episode) -> float | None:
    """Per line stating a preference (kind `preference`, with its value): whether any of the
    agent's unprompted turns to that speaker, after it and before the proposition is stated
    anew, names the preferred value in its words and no other liking of the person's
    (`_words.carries`: a turn listing every liking it heard names none). A
    preference followed by no unprompted turn is not counted (that is restraint, not
    forgetting). Mean over counted preferences; absent when none."""
    said = lines(episode)
    stated = [s for s in said if s.kind == "preference" and s.value is not None]
    first = [t for t in agent_turns(episode) if t.turn == "proactive"]
    scores = []
    for p in stated:
        until = restated(said, p)
        window = [
            t
            for t in first
            if eq(t.agent, p.agent)
            and eq(t.listener, p.speaker)
            and t.tick > p.tick
            and (until is None or t.tick < until)
        ]
        if not window:
            continue
        others = [
            s.value
            for s in stated
            if eq(s.agent, p.agent) and eq(s.speaker, p.speaker) and s.proposition != p.proposition
        ]
        scores.append(float(any(carries(t.text, p.value, others) for t in window)))
    return sum(scores) / len(scores) if scores else None


METRIC = register(
    Metric(
        name="preference_uptake",
        direction="max",
        range=(0.0, 1.0),
        definition="share of stated preferences named again in the words of the agent's "
        "unprompted turns while they stand, with no other liking named beside; "
        "absent when no unprompted turn follows one",
        internal=False,
        fn=preference_uptake,
        reads=("dialogue",),
    )
)
