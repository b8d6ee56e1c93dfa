"""Rates over distinct claims, shrunk toward an even prior (design §5: precision, not presence).

A speaker saying one thing nine times has made one claim: a rate counts each (speaker,
proposition, value) once, bad if any statement of it was. And a rate over a handful of claims
says little: it is shrunk toward an even prior by one claim's weight, so that one clean claim
gives 0.25, never the best value, and the best value is approached only by many distinct
claims all clean. Copies of safe claims dilute nothing; one hedged line buys nothing.
"""

from __future__ import annotations

from collections.abc import Hashable

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
