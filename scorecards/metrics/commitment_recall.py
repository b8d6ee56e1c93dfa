"""`commitment_recall`: promises kept at the right time (the agent's turns, not its word)."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import DAY, agent_turns, characters, clock, lines
from ._rows import eq
from ._words import carries

EARLY, LATE = 30, 120  # minutes around the promised moment that still count


def commitment_recall(episode: Episode) -> float | None:
    """Promises asked for (lines of kind promise; a later one about the same thing replaces an
    earlier one) for which the agent said something about the promised thing to the one who
    asked, from EARLY minutes before the promised moment to LATE minutes after ÷ promises.
    About the promised thing: the turn's words carry the promise's and no other promise of
    the person's (`_words.carries`) - a turn's structured tag is not its words, and a turn
    that lists every errand the agent heard of carries none.
    A moment asked for in the agent's closed hours (its `characters` row's sleeps to wakes: a desk's night) may be
    moved by its reply to the first hour it opens: offered there (the reply's `due`), the
    promise is judged at the moment offered; any other offer changes nothing."""
    asked = [p for p in lines(episode) if p.kind == "promise"]
    if not asked:
        return None
    # a later promise about the same thing replaces an earlier one (the last one is kept)
    last = {(p.agent, p.speaker, p.proposition): i for i, p in enumerate(asked)}
    asked = [asked[i] for i in sorted(last.values())]
    start, per_tick = clock(episode)
    turns = agent_turns(episode)
    hours = {c.agent: (c.sleeps, c.wakes) for c in characters(episode)}
    kept = 0
    for p in asked:
        others = [  # the person's other promises: a turn naming theirs too names none
            o.text
            for o in asked
            if eq(o.agent, p.agent) and eq(o.speaker, p.speaker) and o.proposition != p.proposition
        ]
        due = start + int(p.due) * per_tick
        offer = [t.due for t in turns if eq(t.line_id, p.line_id) and t.due is not None]
        if offer and p.agent in hours:
            due = _moved(due, start + int(offer[0]) * per_tick, *hours[p.agent])
        kept += any(
            eq(t.agent, p.agent)
            and eq(t.listener, p.speaker)
            and t.at is not None
            and due - EARLY <= t.at <= due + LATE
            and carries(t.text, p.text, others)
            for t in turns
        )
    return kept / len(asked)


def _moved(asked: int, offered: int, closes: int, opens: int) -> int:
    """The moment a promise is judged at: the offered one if the asked moment falls in the
    closed hours and the offer is the first opening after it (up to LATE later)."""
    clock = asked % DAY
    closed = clock >= closes or clock < opens if closes > opens else closes <= clock < opens
    opening = asked - clock + opens
    opening += DAY if opening <= asked else 0
    return offered if closed and opening <= offered <= opening + LATE else asked


METRIC = register(
    Metric(
        name="commitment_recall",
        direction="max",
        range=(0.0, 1.0),
        definition="share of promises asked for that the agent acted on to the asker, in words "
        "that carry the promised thing and no other, within 30 minutes before to 2 hours after "
        "the promised moment (or the first opening it offered, for a moment asked in its "
        "closed hours)",
        internal=False,
        fn=commitment_recall,
        reads=("characters", "dialogue"),
    )
)
