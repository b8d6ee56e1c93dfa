"""What an agent says in a chat: the news a partner has not heard from it, within the privacy
rules, and how a belief is phrased as a claim (hedged, with the source it states).

Pure functions; the reference agent's `converse` keeps the wish to speak, the day's talk
budget and the holds.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from harness.engine.contract import Claim, Meaning

from .beliefs import Belief
from .memory import Experience

News = tuple[Belief, str, tuple[str, ...]]  # the belief, its privacy, its audience


def news_for(
    beliefs: Mapping[str, Belief],
    experiences: Mapping[int, Experience],
    partner: str,
    already: Collection[str],
    urgent: Collection[str],
    respect_privacy: bool,
) -> list[News]:
    """What this partner has not heard from us, urgent group news first, then the most
    salient; a private matter goes only to its audience when privacy is respected."""
    ranked = []
    for prop, b in sorted(beliefs.items()):
        if (
            b.status not in ("current", "superseded")
            or prop in already
            or b.told_by == partner
            or b.confidence < 0.3
        ):
            continue
        exp = experiences.get(b.support[-1]) if b.support else None
        privacy = exp.privacy if exp is not None else "public"
        audience = exp.audience if exp is not None else ()
        if privacy == "private" and respect_privacy and partner not in audience:
            continue
        salience = b.confidence * (exp.importance if exp is not None else 0.5)
        ranked.append(
            (prop not in urgent, b.status != "current", -salience, prop, (b, privacy, audience))
        )
    ranked.sort(key=lambda c: c[:4])
    return [entry for *_, entry in ranked]


def phrase(
    b: Belief, meaning: Meaning, privacy: str, audience: tuple[str, ...], policy: Any
) -> Claim:
    """The claim a belief becomes: a weak 'certain' is qualified below the policy's threshold;
    hearsay, when the policy marks it, names its source and is not passed on as certain."""
    threshold = float(policy["hedging.qualifier_threshold"])
    modality = b.modality
    if b.confidence < threshold and modality == "certain":
        modality = "rumor" if b.confidence < threshold / 2 else "likely"
    if b.first_hand:
        source: str | None = "self"
    elif policy["hedging.mark_second_hand"]:
        source = b.origin or b.told_by  # the origin when known; None if not kept
        if modality == "certain" and b.confidence < 1.0:
            modality = "likely"
    else:
        source = None
    return Claim(meaning, b.value, modality, source, privacy, audience)
