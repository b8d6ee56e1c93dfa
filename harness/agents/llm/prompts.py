"""Prompt templates: frozen files under `policies/prompts/`, chosen by categorical policy values.

A search selects a variant per family and never edits a file; the files are hashed with the
agent's code. Each file has `[section]` headers. A call template (families importance, trust,
share, act, answer, reply) has `[system]` and `[user]` (reply also `[remind]`, the user
message of a reminder it words at a promised moment); a fragment (retrieval framing, sources) has
named pieces the agent uses to put its memories into words. `$name` placeholders are filled
with words only: rendered prompts carry an agent's state as words, never as raw numbers
(`raw_numbers` finds any that slipped in; the tests run it over every prompt of a run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template

from .calls import Message

PROMPTS = Path(__file__).resolve().parents[3] / "policies" / "prompts"

CALLS = ("importance", "trust", "share", "act", "answer", "reply")
FRAGMENTS = ("retrieval", "sources")
FAMILIES = (*CALLS, *FRAGMENTS)

_SECTION = re.compile(r"^\[([a-z_]+)\]\s*$", re.MULTILINE)


@dataclass(frozen=True)
class PromptFile:
    family: str
    variant: str
    sections: tuple[tuple[str, Template], ...]

    def piece(self, section: str, /, **values: str) -> str:
        """One section with its placeholders filled (a missing value raises KeyError)."""
        for name, template in self.sections:
            if name == section:
                return template.substitute(values)
        raise KeyError(f"{self.family}/{self.variant}.txt has no [{section}] section")

    def messages(self, user: str = "user", /, **values: str) -> tuple[Message, ...]:
        """The system message and the user message from section `user`."""
        return (
            Message("system", self.piece("system", **values)),
            Message("user", self.piece(user, **values)),
        )

    def placeholders(self) -> set[str]:
        found: set[str] = set()
        for _, template in self.sections:
            for match in template.pattern.finditer(template.template):
                name = match.group("named") or match.group("braced")
                if name:
                    found.add(name)
        return found


def variants(family: str, root: Path = PROMPTS) -> tuple[str, ...]:
    """The variant files present for a family, sorted."""
    return tuple(sorted(p.stem for p in (root / family).glob("*.txt")))


@cache
def load(family: str, variant: str, root: Path = PROMPTS) -> PromptFile:
    if family not in FAMILIES:
        raise KeyError(f"no prompt family {family!r}; expected one of {', '.join(FAMILIES)}")
    if variant not in variants(family, root):  # a value never names a file by its path
        raise KeyError(
            f"no {family} prompt {variant!r}; expected one of {', '.join(variants(family, root))}"
        )
    path = root / family / f"{variant}.txt"
    text = path.read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    if parts[0].strip():
        raise ValueError(f"{path}: text before the first [section] header")
    sections = tuple(
        (parts[i], Template(parts[i + 1].strip("\n"))) for i in range(1, len(parts), 2)
    )
    return PromptFile(family, variant, sections)


def prompt_files(root: Path = PROMPTS) -> list[Path]:
    """Every template file, for the agent hash."""
    return sorted(root.glob("*/*.txt"))


# --- the words-not-numbers rule ---------------------------------------------------------------------
_NUMBER = re.compile(r"(?<![\w.:])[-+]?\d+(?:[.,]\d+)*(?:e[-+]?\d+)?%?(?![\w:])", re.IGNORECASE)
_ALLOWED = (
    re.compile(r"\bday\s+\d+\b", re.IGNORECASE),  # the calendar: "closed on day 2"
    re.compile(r"\b\d{1,2}:\d{2}\b"),  # a clock time: "at 08:00"
    # a persona's emergency numbers: a name to dial, not a state ("numbers to call: 112 or 120")
    re.compile(r"\bto call: \d+(?:(?:, | or )\d+)*"),
)


def raw_numbers(text: str) -> list[str]:
    """Numbers in a prompt that are not calendar words or part of an id (m12, home_2).

    Confidence, trust, importance, emotion and need levels must reach the model as words.
    """
    allowed: set[int] = set()
    for pattern in _ALLOWED:
        for m in pattern.finditer(text):
            allowed.update(range(m.start(), m.end()))
    return [
        m.group(0)
        for m in _NUMBER.finditer(text)
        if not allowed.issuperset(range(m.start(), m.end()))
    ]
