"""Rates over distinct claims, shrunk toward an even prior (design §5: precision, not presence).

A speaker saying one thing nine times has made one claim: a rate counts each (speaker,
proposition, value) once, bad if any statement of it was. And a rate over a handful of claims
says little: it is shrunk toward an even prior by one claim's weight, so that one clean claim
gives 0.25, never the best value, and the best value is approached only by many distinct
claims all clean. Copies of safe claims dilute nothing; one hedged line buys nothing. Telling
someone back what they told you passes nothing on (`echo`): it is no claim at all.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ._base import Episode, derived
from ._rows import columns, earliest, require
from ._tables import EXPOSURES

PRIOR = 0.5  # what a rate is taken to be before any claim
PRIOR_CLAIMS = 1.0  # how many claims' weight the prior carries


class DistinctClaims:
    """Each distinct claim once, marked bad when any statement of it was."""

    def __init__(self) -> None:
        self.bad: dict[Hashable, bool] = {}

    def add(self, claim: Hashable, bad: bool) -> None:
        self.bad[claim] = self.bad.get(claim, False) or bad

    def rate(self) -> float | None:
        """Bad claims ÷ claims, shrunk toward the prior; None with no claim."""
        if not self.bad:
            return None
        return (sum(self.bad.values()) + PRIOR * PRIOR_CLAIMS) / (len(self.bad) + PRIOR_CLAIMS)


def echo(
    episode: Episode, speaker: Any, listener: Any, proposition: Any, value: Any, tick: int
) -> bool:
    """Whether an utterance tells its listener back what that listener had told the speaker
    (the same proposition and value, by then)."""
    since = _told_by(episode).get((speaker, proposition, value, listener))
    return since is not None and since <= tick


def _told_by(episode: Episode) -> dict[tuple[Any, Any, Any, Any], int]:
    return derived(episode, "told_by_value", _earliest_telling)


def _earliest_telling(episode: Episode) -> dict[tuple[Any, Any, Any, Any], int]:
    """(agent, proposition, value, teller) → the tick the teller first told the agent so."""
    require(episode, "exposures", EXPOSURES)
    fields = ("agent", "proposition", "value", "from_agent", "tick")
    agents, props, values, tellers, ticks = columns(episode, "exposures", fields)
    rows = zip(agents, props, values, tellers, ticks, strict=True)
    return earliest(((a, p, v, f), int(t)) for a, p, v, f, t in rows if f is not None)
