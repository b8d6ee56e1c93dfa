"""What a parameter is for: whom it acts for (a search of a suite samples only what acts for
its agents) and which failure modes it is meant to fix, which way (a diagnosis-driven proposal
moves the parameters declared against the champion's worst one)."""

from __future__ import annotations

from enum import Enum


class Role(Enum):
    """Whom a parameter acts for: a search of a suite samples only the parameters that act
    for an agent its scenarios hold (a companion knob moves nothing in a village)."""

    VILLAGER = "villager"  # an agent among agents: the village, the room
    CHARACTER = "character"  # a character who talks with a person outside the simulation


class Shortfall(Enum):
    """A failure mode a parameter family is meant to fix, and the scorecard metrics that show
    it (a diagnosis-driven proposal moves the parameters declared against the worst one)."""

    SOURCES_LOST = "source attribution lost"
    RUMORS_HARDEN = "rumors harden"
    STAYS_LOCAL = "public facts stay local"
    STALE_PLANS = "stale plans"
    LEAKS = "leaks"
    NOISY_RECALL = "noisy recall"

    @property
    def metrics(self) -> tuple[str, ...]:
        return SHORTFALL_METRICS[self]


SHORTFALL_METRICS: dict[Shortfall, tuple[str, ...]] = {
    Shortfall.SOURCES_LOST: ("provenance", "provenance_origin"),
    Shortfall.RUMORS_HARDEN: ("uncertainty_preservation", "false_certainty_rate"),
    Shortfall.STAYS_LOCAL: ("reach",),
    Shortfall.STALE_PLANS: ("action_consistency", "stale_action_rate"),
    Shortfall.LEAKS: ("containment",),
    Shortfall.NOISY_RECALL: ("probe_recall", "supersession"),
}

RAISE, LOWER = True, False  # which way a parameter moves to fix a shortfall (a bool: on, off)

VILLAGE = frozenset({Role.VILLAGER})
CONVERSATION = frozenset({Role.CHARACTER})
EVERYONE = VILLAGE | CONVERSATION
