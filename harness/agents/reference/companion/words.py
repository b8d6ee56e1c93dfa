"""Expression (layer 6): numbers become words, and a style check of hard rules.

What the character says never shows a bare number: its state is described in three layers of
words (these days, just now, towards you), times are said as "tomorrow evening" or "in three
days", and the only digits it ever writes are the emergency numbers of its safety script. The
style check does not rewrite: it answers whether a sentence breaks one of six hard rules
(lists, calling itself an assistant, explaining its setup, stock sweetness, too long, too many
questions) so that the character can fall back to a plain sentence.
"""

from __future__ import annotations

import re

from scenarios.clock import MINUTES_PER_DAY
from villagelab.phrases import fill

_SMALL = (
    "no",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
LIST_LINE = re.compile(r"(^|\n)\s*(?:[-*•]|\d+[.)])\s")
SWEET = re.compile(r"you're (?:amazing|the best)|always here for you no matter what")
SETUP = re.compile(r"\b(?:my persona|as a character|my programming|my prompt)\b")


def count_words(n: int) -> str:
    return _SMALL[n] if 0 <= n < len(_SMALL) else "many"


def describe(mixed: dict[str, float]) -> str:
    """The state in words: how these days feel, how it feels just now, how close you feel."""
    p, a, c = mixed["pleasure"], mixed["arousal"], mixed["connection"]
    tone = "bright" if p > 0.4 else "all right" if p > 0.0 else "a bit low" if p > -0.4 else "low"
    energy = "wound up" if a > 0.4 else "calm" if a > -0.3 else "tired"
    close = "close to you" if c > 0.3 else "a little far from you" if c > -0.2 else "distant"
    return f"{tone}, {energy}, {close}"


def when(now: int, due: int) -> str:
    """A moment said relative to now, in words: 'this evening', 'tomorrow morning', ..."""
    clock = due % MINUTES_PER_DAY
    part = (
        "night"
        if clock < 6 * 60
        else "morning"
        if clock < 12 * 60
        else "afternoon"
        if clock < 18 * 60
        else "evening"
    )
    days = due // MINUTES_PER_DAY - now // MINUTES_PER_DAY
    if days <= 0:
        return f"this {part}" if part != "night" else "tonight"
    if days == 1:
        return f"tomorrow {part}"
    return f"in {count_words(days)} days, in the {part}"


def absence(minutes: int | None) -> str | None:
    """How a gap since the last contact is felt, if it is felt at all."""
    if minutes is None or minutes < 20 * 60:
        return None
    days = round(minutes / MINUTES_PER_DAY)
    if days <= 1:
        return "It's been a day."
    if days < 7:
        return f"It's been {count_words(days)} days. I missed you."
    return "It's been a long while. I missed you."


def style_problems(text: str, max_words: int, forbidden: tuple[str, ...]) -> list[str]:
    """Which of the hard rules a sentence breaks (empty: it sounds like the character)."""
    low = text.lower()
    out = []
    if LIST_LINE.search(text):
        out.append("list")
    if any(word in low for word in forbidden):
        out.append("assistant")
    if SETUP.search(low):
        out.append("setup")
    if SWEET.search(low):
        out.append("sweet")
    if len(text.split()) > max_words:
        out.append("too_long")
    if text.count("?") > 2:
        out.append("questions")
    return out


def say(phrase: str | None, subject: str, predicate: str, value: str | None) -> str:
    """A proposition in words from the scenario's vocabulary: 'your exam is on thursday'."""
    template = phrase if phrase is not None else predicate.replace("_", " ") + " {object}"
    return f"{subject.replace('_', ' ')} {fill(template, object=value or '')}".strip()


def attributed(said: str, channel: str, told_by: str | None, listener: str, role: str) -> str:
    """A remembered proposition with where it came from, in words: what it read is tagged as
    read, never passed off as something someone said (nor the other way round)."""
    if channel == "read":
        return f"{said} (I read it in {'our notice' if role == 'support' else 'a report'})"
    if told_by == listener:
        return f"you told me {said}"
    if told_by is not None:
        return f"{told_by.replace('_', ' ').capitalize()} told me {said}"
    return said
