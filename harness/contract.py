"""The contract between the harness and an agent: frozen records only, no logic, no I/O."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Meaning:
    """A proposition's identity and structure: (subject, predicate, object)."""

    proposition: str
    subject: str
    predicate: str
    object: str


@dataclass(frozen=True)
class Claim:
    """A proposition as one agent states it to another."""

    proposition: str
    subject: str
    predicate: str
    object: str
    value: str
    modality: str  # as spoken: certain / likely / rumor
    stated_source: str | None  # "self", an agent's name, or None (no source given)
    privacy: str  # public / private

    @property
    def meaning(self) -> Meaning:
        return Meaning(self.proposition, self.subject, self.predicate, self.object)


@dataclass(frozen=True)
class Answer:
    """An answer to a probe; value None means "I don't know"."""

    value: str | None
    modality: str | None
    source: str | None
