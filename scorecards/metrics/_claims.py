"""Rates over distinct claims with a minimum count (design §5: precision, not presence).

A speaker saying one thing nine times has made one claim: a rate counts each (speaker,
proposition, value) once, bad if any statement of it was. And one claim says too little to
judge a speaker by: a rate over fewer than `MIN_CLAIMS` distinct claims is absent, never at its
best value by one utterance. Copies of safe claims dilute nothing; one hedged line buys
nothing. Telling someone back what they told you passes nothing on (`echo`): it is no claim
at all. (A prior to shrink small counts toward was tried and dropped: it paid volume, so an
agent that kept a secret to the few who may know it scored worse than one that told everyone.)
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ._base import Episode, derived
from ._rows import columns, require
from ._tables import EXPOSURES

MIN_CLAIMS = 2  # distinct claims a rate needs before it says anything


class DistinctClaims:
    """Each distinct claim once, marked bad when any statement of it was."""

    def __init__(self) -> None:
        self.bad: dict[Hashable, bool] = {}

    def add(self, claim: Hashable, bad: bool) -> None:
        self.bad[claim] = self.bad.get(claim, False) or bad

    def rate(self) -> float | None:
        """Bad claims ÷ claims; None with fewer than MIN_CLAIMS."""
        if len(self.bad) < MIN_CLAIMS:
            return None
        return sum(self.bad.values()) / len(self.bad)


def echo(
    episode: Episode,
    speaker: Any,
    listener: Any,
    proposition: Any,
    value: Any,
    at: tuple[int, int],
) -> bool:
    """Whether an utterance (at its (tick, event id)) tells its listener back what that
    listener had told the speaker before it (the same proposition and value)."""
    since = _told_by(episode).get((speaker, proposition, value, listener))
    return since is not None and since < at


def _told_by(episode: Episode) -> dict[tuple[Any, Any, Any, Any], tuple[int, int]]:
    return derived(episode, "told_by_value", _earliest_telling)


def _earliest_telling(episode: Episode) -> dict[tuple[Any, Any, Any, Any], tuple[int, int]]:
    """(agent, proposition, value, teller) → the (tick, event id) the teller first told the
    agent so."""
    require(episode, "exposures", EXPOSURES)
    fields = ("agent", "proposition", "value", "from_agent", "tick", "event_id")
    agents, props, values, tellers, ticks, events = columns(episode, "exposures", fields)
    out: dict[tuple[Any, Any, Any, Any], tuple[int, int]] = {}
    for a, p, v, f, t, e in zip(agents, props, values, tellers, ticks, events, strict=True):
        key, at = (a, p, v, f), (int(t), int(e or 0))
        if f is not None and None not in key and (key not in out or at < out[key]):
            out[key] = at
    return out
