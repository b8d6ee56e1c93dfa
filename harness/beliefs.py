"""Beliefs: an agent's current, revisable take on a proposition, linked to its experiences."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .memory import Experience

MODALITY_WEIGHT = {"certain": 1.0, "likely": 0.7, "rumor": 0.4}


@dataclass(frozen=True)
class Belief:
    proposition: str
    subject: str
    predicate: str
    object: str
    value: str
    confidence: float
    modality: str
    origin: str | None  # as the agent believes it
    told_by: str | None
    first_hand: bool
    status: str = "current"  # current / superseded / outdated / forgotten
    support: tuple[int, ...] = ()  # experience ids
    informants: tuple[str, ...] = field(default=())  # who told it, counted once each


def modality_for(confidence: float) -> str:
    return "certain" if confidence >= 0.85 else "likely" if confidence >= 0.5 else "rumor"


def from_experience(old: Belief | None, exp: Experience, meaning: tuple[str, str, str],
                    trust: float, policy: Any) -> Belief | None:
    """The belief after one experience about a proposition, or None when nothing changes.

    First-hand perception is taken as certain. Hearsay counts trust × the spoken modality,
    capped by policy; hearing the same informant again is not new evidence.
    """
    assert exp.proposition is not None and exp.value is not None
    subject, predicate, obj = meaning
    if exp.first_hand:
        confidence, modality = 1.0, exp.modality or "certain"
    else:
        if old is not None and exp.told_by is not None and exp.told_by in old.informants:
            return None
        heard = MODALITY_WEIGHT.get(exp.modality or "certain", 0.4)
        confidence = min(trust * heard, float(policy["belief.second_hand_cap"]))
        modality = min((exp.modality or "certain", modality_for(confidence)),
                       key=lambda m: MODALITY_WEIGHT[m])
    if old is not None and old.value == exp.value:
        if old.first_hand or confidence <= 0:
            return None
        # independent corroboration: noisy-or of the two confidences, within the cap
        cap = 1.0 if exp.first_hand else max(float(policy["belief.second_hand_cap"]),
                                             old.confidence)
        confidence = min(cap, 1 - (1 - old.confidence) * (1 - confidence))
        if confidence <= old.confidence + 1e-12 and not exp.first_hand:
            return replace(old, informants=_add(old.informants, exp.told_by),
                           support=(*old.support, exp.id))
        modality = max((old.modality, modality), key=lambda m: MODALITY_WEIGHT[m])
    if old is not None and old.value != exp.value and not exp.first_hand \
            and confidence < old.confidence:
        return None  # weaker contradicting hearsay does not overturn the belief (yet)
    return Belief(
        proposition=exp.proposition, subject=subject, predicate=predicate, object=obj,
        value=exp.value, confidence=round(confidence, 6), modality=modality,
        origin=exp.origin if not exp.first_hand else exp.owner,
        told_by=exp.told_by, first_hand=exp.first_hand,
        support=((*old.support, exp.id) if old is not None and old.value == exp.value
                 else (exp.id,)),
        informants=_add(old.informants if old is not None and old.value == exp.value else (),
                        exp.told_by),
    )


def _add(names: tuple[str, ...], name: str | None) -> tuple[str, ...]:
    return names if name is None or name in names else (*names, name)
