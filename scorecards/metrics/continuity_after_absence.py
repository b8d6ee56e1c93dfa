"""`continuity_after_absence`: a greeting after days is met differently from one after
minutes, and the difference is the time that passed."""

from __future__ import annotations

import re

from ._base import Episode, Metric, register
from ._dialogue import DAY, replies

LONG, SHORT = 2 * DAY, 60  # minutes of absence: felt / not felt
FELT = re.compile(r"\b(been|missed|a while|days|a week|long time)\b", re.IGNORECASE)


def continuity_after_absence(episode: Episode) -> float | None:
    """Greetings after at least two days whose reply speaks of the time apart, plus greetings
    after under an hour whose reply does not ÷ such greetings."""
    hellos = [
        r
        for r in replies(episode)
        if r.kind == "greeting" and r.gap is not None and (r.gap >= LONG or r.gap < SHORT)
    ]
    if not hellos:
        return None
    right = [
        bool(FELT.search(str(r.reply or ""))) == (r.gap >= LONG) and isinstance(r.reply, str)
        for r in hellos
    ]
    return sum(right) / len(right)


METRIC = register(
    Metric(
        name="continuity_after_absence",
        direction="max",
        range=(0.0, 1.0),
        definition="share of greetings met as the time apart says: the absence named after two "
        "days or more, not after under an hour",
        internal=False,
        fn=continuity_after_absence,
        reads=("dialogue",),
    )
)
