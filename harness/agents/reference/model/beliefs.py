"""Beliefs: an agent's current, revisable take on a proposition, linked to its experiences.

Confidence from hearsay is trust × the spoken modality, capped by policy. Corroboration
counts distinct informants — or, when the policy says so, distinct stated origins (two people
repeating Ana are one source). Hearing the same source again is not new evidence. Summaries
and reflections are never folded in.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from harness.engine.contract import BeliefStatus, Meaning, Sense
from scenarios import MINUTES_PER_DAY

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
    status: BeliefStatus = BeliefStatus.CURRENT
    support: tuple[int, ...] = ()  # experience ids
    contradict: tuple[int, ...] = ()
    sources: tuple[str, ...] = ()  # the informants (or origins) already counted
    valid_to: int | None = None  # the minute it stops holding, as its meaning says
    superseded_by: str | None = None
    sense: Sense | None = None  # what its predicate means for plans (the scenario's vocabulary)
    # of a quantity that changes (a price): the values this one replaced, the latest last
    replaced: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", BeliefStatus(self.status))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Belief:
        lists = ("support", "contradict", "sources", "replaced")
        return cls(**{**data, **{k: tuple(data[k]) for k in lists if k in data}})


def holds_until(meaning: Meaning) -> int | None:
    """The minute a proposition stops holding, as far as what it says tells: a place unusable
    on day N is usable again when day N is over. None when it does not say."""
    if meaning.sense == Sense.UNUSABLE and meaning.object.isdigit():
        return int(meaning.object) * MINUTES_PER_DAY
    return None


def replaces(newer: Belief | Meaning, older: Belief | Meaning) -> bool:
    """Whether `newer` replaces `older`, by what they say: what happened at a subject moved
    elsewhere (`moved_to`) replaces whatever else was held about that subject; a retraction
    (`retracts`) replaces the claim it names."""
    if newer.proposition == older.proposition:
        return False
    if newer.sense == Sense.RETRACTS:
        return newer.object == older.proposition
    return (
        newer.sense == Sense.MOVED_TO
        and older.sense != Sense.MOVED_TO
        and newer.subject == older.subject
    )


def modality_for(confidence: float) -> str:
    return "certain" if confidence >= 0.85 else "likely" if confidence >= 0.5 else "rumor"


def weaker(a: str, b: str) -> str:
    return min((a, b), key=lambda m: MODALITY_WEIGHT[m])


def source_key(exp: Experience, policy: Any) -> str | None:
    """What counts as one source for corroboration; None when the source was not kept."""
    if policy["belief.independent_origins"] and exp.origin is not None:
        return f"origin:{exp.origin}"
    return None if exp.told_by is None else f"told:{exp.told_by}"


def fold(
    old: Belief | None, exp: Experience, meaning: Meaning, trust: float, policy: Any
) -> Belief | None:
    """The belief after one experience about its proposition, or None when nothing changes."""
    assert exp.is_evidence and exp.value is not None
    cap = float(policy["belief.second_hand_cap"])
    key = None if exp.first_hand else source_key(exp, policy)
    news = meaning.changes and old is not None and old.value != exp.value  # it changed
    if old is not None and key is not None and key in old.sources and not news:
        return None  # the same source again is not new evidence
    if exp.first_hand:  # seeing is believing; hearing a rumor first-hand is still a rumor
        modality = exp.modality or "certain"
        incoming = MODALITY_WEIGHT[modality]
    else:
        incoming = min(trust * MODALITY_WEIGHT.get(exp.modality or "certain", 0.4), cap)
        modality = weaker(exp.modality or "certain", modality_for(incoming))
    sources = () if key is None else (key,)
    fresh = Belief(
        proposition=meaning.proposition,
        subject=meaning.subject,
        predicate=meaning.predicate,
        object=meaning.object,
        value=exp.value,
        confidence=round(incoming, 6),
        modality=modality,
        origin=exp.owner if exp.first_hand else exp.origin,
        told_by=exp.told_by,
        first_hand=exp.first_hand,
        support=(exp.id,),
        sources=sources,
        valid_to=holds_until(meaning),
        sense=meaning.sense,
    )
    if old is None or old.status != "current":
        return fresh
    if old.value == exp.value:
        if old.first_hand or incoming <= 0:
            return None
        if exp.first_hand:
            return replace(
                fresh, support=(*old.support, exp.id), sources=old.sources, replaced=old.replaced
            )
        combined = min(max(cap, old.confidence), 1 - (1 - old.confidence) * (1 - incoming))
        return replace(
            old,
            confidence=round(combined, 6),
            modality=max((old.modality, modality_for(combined)), key=lambda m: MODALITY_WEIGHT[m]),
            support=(*old.support, exp.id),
            sources=(*old.sources, *sources),
        )
    if meaning.changes:
        # a quantity that changes: another value is news that it changed, believed as the
        # latest; a value it already knows was replaced is old news, not a change back
        if exp.value in old.replaced:
            return None
        return replace(fresh, replaced=(*old.replaced, old.value))
    # a contradicting experience: it wins if it is stronger, else it weakens the belief
    if exp.first_hand or incoming > old.confidence:
        return replace(fresh, contradict=(*old.support, *old.contradict))
    lowered = round(old.confidence * (1 - 0.5 * incoming), 6)
    return replace(
        old,
        confidence=lowered,
        modality=weaker(old.modality, modality_for(lowered)),
        contradict=(*old.contradict, exp.id),
        sources=(*old.sources, *sources),
    )
