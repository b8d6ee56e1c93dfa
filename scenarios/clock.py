"""Scenario time: written as "day D HH:MM" (or "HH:MM" for a daily slot), counted in minutes."""

from __future__ import annotations

import re

MINUTES_PER_DAY = 24 * 60

_MOMENT = re.compile(r"^\s*day\s+(\d+)\s+(\d{1,2}):(\d{2})\s*$")
_CLOCK = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*$")
_SPAN = re.compile(r"^\s*(\d+)\s*(h|min)\s*$")


def parse_moment(text: str) -> int:
    """'day 2 08:00' → minutes since day 1 00:00."""
    m = _MOMENT.match(text)
    if not m or int(m[1]) < 1 or int(m[2]) > 23 or int(m[3]) > 59:
        raise ValueError(f"expected a moment like 'day 2 08:00', got {text!r}")
    return (int(m[1]) - 1) * MINUTES_PER_DAY + int(m[2]) * 60 + int(m[3])


def parse_clock(text: str) -> int:
    """'08:00' → minutes since midnight."""
    m = _CLOCK.match(text)
    if not m or int(m[1]) > 23 or int(m[2]) > 59:
        raise ValueError(f"expected a time of day like '08:00', got {text!r}")
    return int(m[1]) * 60 + int(m[2])


def parse_span(text: str) -> int:
    """'48h' or '30min' → minutes."""
    m = _SPAN.match(text)
    if not m:
        raise ValueError(f"expected a duration like '48h' or '30min', got {text!r}")
    return int(m[1]) * (60 if m[2] == "h" else 1)


def day_of(minute: int) -> int:
    return minute // MINUTES_PER_DAY + 1


def clock_of(minute: int) -> int:
    return minute % MINUTES_PER_DAY


def format_moment(minute: int) -> str:
    """Minutes since day 1 00:00 → 'day 2 08:00' (as `parse_moment` reads it)."""
    clock = clock_of(minute)
    return f"day {day_of(minute)} {clock // 60:02d}:{clock % 60:02d}"
