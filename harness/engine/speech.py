"""Rendered text for claims: templates that hedge as spoken and never show raw numbers.

The predicate's phrase comes from the scenario's vocabulary (`Meaning.phrase`); a predicate
without one is said as its words ("news_on" → "news on {object}").
"""

from __future__ import annotations

from villagelab.phrases import fill

from .contract import Claim

_HEDGE = {"certain": "is", "likely": "is probably", "rumor": "might be"}


def render(claim: Claim) -> str:
    m = claim.meaning
    phrase = m.phrase or m.predicate.replace("_", " ") + " {object}"
    body = f"the {m.subject} {_HEDGE[claim.modality]} {fill(phrase, object=m.object)}"
    if m.changes:  # a quantity: the value said is what it is now
        body = f"{body}, now {claim.value}"
    elif claim.value != "true":
        body = f"it is not so that {body}"
    if claim.stated_source == "self":
        return f"I know first-hand: {body}."
    if claim.stated_source:
        return f"{claim.stated_source.title()} says {body}."
    return f"{body[0].upper()}{body[1:]}."
