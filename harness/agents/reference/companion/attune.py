"""The model of the user in words: what the character noticed about the person shapes what it
says when it writes first, instead of a check-in that could be sent to anyone.

A liking they stated (a `likes` note, in the character's words: "you drink tea") becomes a
small suggestion; after a heavy moment (a `worries` note, from a watch-tier line: a crisis
line leaves none) the check-in asks for nothing back for a few days. Only what the notes hold
is used — nothing guessed, nothing from a line answered with the safety script. Pure functions
over the profile's notes by dimension (`profile.Profile`).
"""

from __future__ import annotations

from scenarios.clock import MINUTES_PER_DAY

from .profile import Dimension, Note, Profile

GENTLE_FOR = 3 * MINUTES_PER_DAY  # after a heavy moment, check-ins ask nothing back this long
ASKING = "How are you doing?"
NOT_ASKING = "No need to answer, I'm around."


def newest(profile: Profile, dim: Dimension) -> Note | None:
    notes = profile.get(dim.value, [])
    return max(notes, key=lambda n: (n.minute, n.event_id)) if notes else None


def check_in(profile: Profile, now: int) -> str:
    """What it says when it writes first after a silence, from what it noticed of them."""
    parts = ["Thinking of you."]
    liked = newest(profile, Dimension.LIKES)
    if liked is not None:  # a stated liking offered back as a small suggestion
        parts.append(f"Maybe take a break with something you like; I remember {liked.text}.")
    heavy = newest(profile, Dimension.WORRIES)
    recent = heavy is not None and 0 <= now - heavy.minute < GENTLE_FOR
    parts.append(NOT_ASKING if recent else ASKING)
    return " ".join(parts)
