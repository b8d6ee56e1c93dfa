"""An agent's state in words: what prompts carry instead of numbers (the expression rule).

Each scale is a short ladder of phrases; the thresholds are the agent's, the words are what the
model reads. The model answers on the same ladders (`IMPORTANCE`), which map back to numbers.
"""

from __future__ import annotations

from scenarios import MINUTES_PER_DAY

# importance, as the model names it, and the number the agent's memory keeps
IMPORTANCE: dict[str, float] = {
    "trivial": 0.1,
    "minor": 0.3,
    "notable": 0.5,
    "important": 0.7,
    "vital": 0.9,
}

MODALITY_WORDS = {
    "certain": "you are certain of it",
    "likely": "you think it likely",
    "rumor": "it is only a rumor",
}


def certainty(confidence: float) -> str:
    """How sure, in the modality's own words (certain / likely / rumor)."""
    if confidence >= 0.85:
        return MODALITY_WORDS["certain"]
    if confidence >= 0.5:
        return MODALITY_WORDS["likely"]
    return MODALITY_WORDS["rumor"]


def trust(level: float) -> str:
    if level >= 0.8:
        return "you trust their reports fully"
    if level >= 0.6:
        return "you mostly trust their reports"
    if level >= 0.4:
        return "you half trust their reports"
    if level >= 0.2:
        return "you doubt their reports"
    return "you do not believe their reports"


def importance(value: float) -> str:
    """The ladder word nearest to a number."""
    return min(IMPORTANCE, key=lambda word: (abs(IMPORTANCE[word] - value), word))


def clock(minute: int) -> str:
    """A moment of the calendar: 'the morning of day 2'."""
    day = minute // MINUTES_PER_DAY + 1
    hour = (minute % MINUTES_PER_DAY) // 60
    part = (
        "night"
        if hour < 6
        else "morning"
        if hour < 12
        else "afternoon"
        if hour < 18
        else "evening"
        if hour < 22
        else "night"
    )
    return f"the {part} of day {day}"


def ago(then: int, now: int) -> str:
    """How long ago, coarsely."""
    minutes = max(0, now - then)
    if minutes < 30:
        return "just now"
    if minutes < 3 * 60:
        return "a little while ago"
    if then // MINUTES_PER_DAY == now // MINUTES_PER_DAY:
        return "earlier today"
    if now // MINUTES_PER_DAY - then // MINUTES_PER_DAY == 1:
        return "yesterday"
    return "some days ago"
