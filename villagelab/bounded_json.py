"""JSON from a file anyone could have edited (a run folder's manifest, its progress log):
nesting and numbers bounded before anything is built, so a crafted file is refused with a
message instead of a RecursionError, an OverflowError or a float that is not a number."""

from __future__ import annotations

import json
import math
import re
from typing import Any

DEPTH = 64  # a manifest nests 4 deep; a scorecard 6
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class JsonRefused(ValueError):
    """JSON that is not plain data of a bounded shape (the message says what is wrong)."""


def _constant(name: str) -> Any:
    raise JsonRefused(f"{name} is not a number JSON allows")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonRefused(f"the number {text[:40]} is out of range (not a finite float)")
    return value


def loads(text: str, depth: int = DEPTH) -> Any:
    """`text` as JSON, or JsonRefused (also for invalid JSON: a ValueError either way) when it
    nests deeper than `depth` or holds a number out of range (1e400, NaN, Infinity, an integer
    of more than 4,300 digits)."""
    level = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            level += 1
            if level > depth:
                raise JsonRefused(f"nested deeper than {depth} levels")
        elif token in "]}":
            level -= 1
    try:
        return json.loads(text, parse_float=_float, parse_constant=_constant)
    except JsonRefused:
        raise
    except (ValueError, RecursionError) as exc:
        raise JsonRefused(str(exc)) from None
