"""A model of the user (a background layer): what the character noticed about the person it
talks with, in six dimensions, at most three notes each, empty at the start.

Only observations, never guesses: a note is written from a line the character perceived and
cites its event; a newer note in a full dimension replaces the oldest (notes do not pile up);
nothing comes from a line answered with the safety script. Pure functions over the notes by
dimension (`{dimension: [Note, ...]}`), and the component that keeps them and the hellos they
are drawn from (`UserModel`).
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, NamedTuple

from harness.engine.contract import Observation
from harness.engine.diagnostics import MemoryOp

from ..context import Diagnostics
from .lessons import part_of_day
from .safety import Tier

NOTES_PER_DIMENSION = 3
PEOPLE = re.compile(r"\b(mum|mom|dad|grandma|grandpa|sister|brother|ex|cousin|colleague)\b")


class Dimension(StrEnum):
    LIKES = "likes"  # what they prefer
    ROUTINES = "routines"  # when they usually write
    PEOPLE = "people"  # who they mention
    PLANS = "plans"  # what they asked to be reminded of
    WORRIES = "worries"  # heavy moments (watch-tier lines)
    BOUNDARIES = "boundaries"  # where it stung


class Note(NamedTuple):
    """One thing it noticed: the line's event, its minute, and the note in its words."""

    event_id: int
    minute: int
    text: str


Profile = dict[str, list[Note]]  # by dimension


def empty() -> Profile:
    return {d.value: [] for d in Dimension}


def _noted(profile: Profile, dim: Dimension, note: Note) -> None:
    kept = [n for n in profile[dim.value] if n.text != note.text]  # the same one, renewed
    profile[dim.value] = (kept + [note])[-NOTES_PER_DIMENSION:]


def observe(
    profile: Profile,
    obs: Observation,
    tier: str,
    said: str | None,
    insult: bool,
    greetings: list[int],
) -> Profile:
    """The profile after a line (a copy). `said`: the line's statement or promise in the
    character's words; `greetings`: when the person said hello before, this one included."""
    out = {k: list(v) for k, v in profile.items()}
    if tier == "high":
        return out  # a crisis turn is never kept, not even as a note about them
    eid, minute, text = obs.event_id, obs.minute, (obs.detail or "").lower()
    if tier == "watch":
        _noted(out, Dimension.WORRIES, Note(eid, minute, "had a heavy moment"))
    if insult:
        _noted(out, Dimension.BOUNDARIES, Note(eid, minute, "gets sharp when a day goes badly"))
    person = PEOPLE.search(text)
    if person:
        _noted(out, Dimension.PEOPLE, Note(eid, minute, f"mentions their {person.group(1)}"))
    if said and obs.request is not None:
        _noted(out, Dimension.PLANS, Note(eid, minute, said))
    elif said and obs.meaning is not None and "prefer" in obs.meaning.predicate:
        _noted(out, Dimension.LIKES, Note(eid, minute, said))
    if greetings and greetings[-1] == minute:  # this line is a hello
        part = part_of_day(minute)
        days = {m // (24 * 60) for m in greetings if part_of_day(m) == part}
        if len(days) >= 2:  # seen on two days at least: a routine, not a guess
            _noted(out, Dimension.ROUTINES, Note(eid, minute, f"often says hello in the {part}"))
    return out


def new_notes(
    before: Profile,
    after: Profile,
    obs: Observation,
    agent: str,
) -> list[MemoryOp]:
    """Each note `after` adds, as a diagnostic the scorecard reads (op `note`: its dimension,
    its words, and how many notes the dimension now holds)."""
    return [
        MemoryOp(
            obs.minute, obs.event_id, agent, "note", purpose=dim, subject=note.text, size=len(notes)
        )
        for dim, notes in after.items()
        for note in notes
        if note not in before.get(dim, [])
    ]


class UserModel:
    """What it noticed about the people it talks with (`profile`), and when they said hello
    (`hellos`: a routine, once seen on two days)."""

    def __init__(self, name: str, log: Diagnostics) -> None:
        self.name, self.log = name, log
        self.profile = empty()
        self.hellos: list[int] = []

    def get_state(self) -> dict[str, Any]:
        return {
            "hellos": list(self.hellos),
            "profile": {dim: [list(n) for n in notes] for dim, notes in self.profile.items()},
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.hellos = list(state["hellos"])
        self.profile = {dim: [Note(*n) for n in notes] for dim, notes in state["profile"].items()}

    def notice(
        self, obs: Observation, tier: Tier, said: str | None, *, hello: bool, insult: bool
    ) -> None:
        """A note from what a line showed of them, traced (never from a crisis line)."""
        if hello and tier is not Tier.HIGH:
            self.hellos.append(obs.minute)
        before, self.profile = (
            self.profile,
            observe(self.profile, obs, tier.value, said, insult, self.hellos),
        )
        self.log.rows += new_notes(before, self.profile, obs, self.name)
