"""Whether an utterance's words contradict its structured claim (hedging, stated source).

An agent that authors its own words (an LLM agent) may say "I'm sure" while the claim it
records is a rumor, or name Ana in words while the claim states no source. The scorecard
counts the structured claim; this check flags where the words a listener hears say otherwise.
Cue lists are deliberately small and explicit: a flag is a reason a person can read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

HEDGES = (
    "might",
    "may",
    "maybe",
    "perhaps",
    "probably",
    "possibly",
    "likely",
    "rumor",
    "rumour",
    "i heard",
    "not sure",
    "could be",
    "i think",
    "seems",
    "supposedly",
)
SURE = (
    "certain",
    "sure",
    "definitely",
    "for a fact",
    "i know",
    "without a doubt",
    "i saw it",
    "saw it myself",
    "first-hand",
    "first hand",
)
HEARSAY = ("told me", "said", "says", "heard from", "according to", "i heard")


def _has(text: str, cues: Iterable[str]) -> bool:
    return any(re.search(r"(?<![\w])" + re.escape(c) + r"(?![\w])", text) for c in cues)


def _names(text: str, names: Iterable[str]) -> set[str]:
    return {
        n for n in names if n and re.search(r"(?<![\w])" + re.escape(n.lower()) + r"(?![\w])", text)
    }


def contradictions(
    text: str | None, modality: str | None, stated_source: str | None, people: Iterable[str] = ()
) -> list[str]:
    """The reasons the words contradict the claim; empty when they agree (or say nothing).
    Missing values (None, NaN, NA from a trace) count as absent."""
    if not isinstance(text, str) or not text:
        return []
    modality = modality if isinstance(modality, str) else None
    stated_source = stated_source if isinstance(stated_source, str) else None
    words = text.lower()
    hedged, sure = _has(words, HEDGES), _has(words, SURE)
    out = []
    if modality == "certain" and hedged and not sure:
        out.append("hedged words for a certain claim")
    if modality in ("likely", "rumor") and sure and not hedged:
        out.append(f"sure words for a {modality} claim")
    if modality == "rumor" and not hedged:
        out.append("unhedged words for a rumor")
    named = _names(words, set(people) - {stated_source or ""})
    if stated_source == "self" and _has(words, ("told me", "heard from", "according to")):
        out.append("hearsay words for a first-hand claim")
    elif stated_source not in (None, "self") and stated_source.lower() not in words:
        out.append(f"words do not name the stated source {stated_source}")
    elif stated_source is None and named and _has(words, HEARSAY):
        out.append("words name a source the claim does not state")
    return out
