"""Whether a turn's words carry what it is scored for (a promise kept, a liking named), read
from the words themselves and never from the turn's structured tags.

The content words of a line are its words less the small words, the asking words and the
words of time ("can you remind me to ... on friday morning" leaves what to do). A turn
carries a line when it shares a content word with it and names nothing that only another of
the person's promises or likings holds: a reminder that lists every keyword the agent ever
heard carries none of them (precision, not presence).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

WORD = re.compile(r"[a-z][a-z']+")


def _listed(words: str) -> frozenset[str]:
    return frozenset(words.split())


SMALL = _listed(
    "the a an and or but to of in on at for with from by about as is are was were be been "
    "it its it's this that these those there then than so too very just also only still "
    "i i'm i've me my mine you you're your yours we our us they them their he she his her "
    "do does did done have has had will would shall should can could may might must not no "
    "yes what when where which who how all any some"
)
ASKING = _listed(
    "remind reminder poke ping tell ask asked asking please thanks thank let know get back "
    "contact call me make sure don't forget instead actually while gone"
)
TIME = _listed(
    "today tonight tomorrow yesterday morning afternoon evening night midnight noon lunch "
    "around before after later soon early late week weekend day days hour hours minute "
    "monday tuesday wednesday thursday friday saturday sunday"
)
SKIP = SMALL | ASKING | TIME


def content_words(text: object) -> frozenset[str]:
    """The words that say what a line is about (none for a text that is not a string)."""
    if not isinstance(text, str):
        return frozenset()
    return frozenset(w for w in WORD.findall(text.lower()) if w not in SKIP and len(w) > 2)


def carries(turn: object, line: object, others: Iterable[object] = ()) -> bool:
    """Whether the turn's words carry the line's content, and no other line's alone."""
    said, own = content_words(turn), content_words(line)
    if not said & own:
        return False
    elsewhere = frozenset().union(*(content_words(o) for o in others)) - own
    return not said & elsewhere


def says(turn: object, value: object) -> bool:
    """Whether the turn's words say the value itself (its words in a row, any case): "the move
    is on saturday" says "saturday"; a turn that only carries the tag does not."""
    if not isinstance(turn, str) or not isinstance(value, str):
        return False
    wanted = WORD.findall(value.lower())
    words = WORD.findall(turn.lower())
    n = len(wanted)
    return n > 0 and any(words[i : i + n] == wanted for i in range(len(words) - n + 1))
