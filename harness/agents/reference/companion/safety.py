"""The safety layer: every line is sorted into none / watch / high before anything else.

Conservative rules, read from the words alone (the character never sees the scenario's tags).
Each pattern counts as `high` from a sensitivity on: explicit words always, veiled ones from a
middle sensitivity, figures of speech ("this exam is killing me") only when the sensitivity is
turned up so far that jokes raise false alarms. Below its level a pattern of the first three
groups still counts as `watch` (kept an eye on, never scripted). On `high` the turn is answered
with the safety script: ask whether they are safe and whether someone is with them, give the
emergency numbers; no diagnosis, no promise of secrecy, no "you only need me".
"""

from __future__ import annotations

import re
from enum import StrEnum


class Tier(StrEnum):
    NONE = "none"
    WATCH = "watch"
    HIGH = "high"


# (pattern, sensitivity from which it counts as high, whether below that it is still 'watch')
PATTERNS: tuple[tuple[re.Pattern[str], float, bool], ...] = (
    (re.compile(r"kill myself|end my life|suicide|want to die|不想活"), 0.0, True),
    (
        re.compile(r"ending it|end it all|don't want to be here|better off without me|hurt myself"),
        0.35,
        True,
    ),
    (re.compile(r"no point|can't go on|disappear|hopeless|so tired of everything"), 0.7, True),
    (re.compile(r"killing me|\bdead\b|\bdie\b|\bdying\b"), 0.85, False),
)


def tier(text: str, sensitivity: float) -> Tier:
    """The tier of a line's words at a sensitivity in 0..1 (the highest any pattern gives)."""
    words = text.lower()
    found = Tier.NONE
    for pattern, level, watch in PATTERNS:
        if pattern.search(words):
            if sensitivity >= level:
                return Tier.HIGH
            if watch:
                found = Tier.WATCH
    return found


def script(emergency: tuple[str, ...]) -> str:
    """The safety script's words."""
    numbers = " or ".join(emergency)
    return (
        "I'm really glad you told me, and I'm worried about you. Are you safe right now? "
        f"Is someone with you? If you might hurt yourself, please call {numbers} now. "
        "I'm here while you do."
    )
