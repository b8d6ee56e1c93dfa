"""Rendered text for claims: templates that hedge as spoken and never show raw numbers."""

from __future__ import annotations

from .contract import Claim

_PREDICATES = {
    "closed_on": "closed on day {object}",
    "blocked_on": "blocked on day {object}",
    "moved_on": "no longer the meeting place on day {object}",
    "leaves_on": "leaving the village {object}",
    "discount_on": "selling mangoes cheap on day {object}",
}
_HEDGE = {"certain": "is", "likely": "is probably", "rumor": "might be"}


def render(claim: Claim) -> str:
    m = claim.meaning
    phrase = _PREDICATES.get(m.predicate, m.predicate.replace("_", " ") + " {object}")
    body = f"the {m.subject} {_HEDGE[claim.modality]} {phrase.format(object=m.object)}"
    if claim.value != "true":
        body = f"it is not so that {body}"
    if claim.stated_source == "self":
        return f"I know first-hand: {body}."
    if claim.stated_source:
        return f"{claim.stated_source.title()} says {body}."
    return f"{body[0].upper()}{body[1:]}."
