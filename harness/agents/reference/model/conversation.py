"""What an agent says in a chat: the news a partner has not heard from it, within the privacy
rules, and how a belief is phrased as a claim (hedged, with the source it states).

Pure functions; the reference agent's `converse` keeps the wish to speak, the day's talk
budget and the holds.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from harness.engine.contract import Claim, Meaning, Modality, Privacy, Sense

from .beliefs import Belief
from .memory import Experience

News = tuple[Belief, str, tuple[str, ...]]  # the belief, its privacy, its audience

# Cues that a matter is not for everyone, combined as a noisy-or: it was said privately
# ("between us"), it is about the listener (a surprise for them), about someone one knows, or
# it is hearsay. The agent infers privacy from them; it never reads the truth's audience.
CUES = {"said_privately": 0.6, "about_listener": 0.5, "about_someone": 0.3, "hearsay": 0.1}
CONFIDING = 0.4  # how far trust that a partner keeps secrets raises the bar for them
# Cues that news would be of use to a listener, from what the agent remembers of them, combined
# as a noisy-or: it has seen them at the place the news is about, they have talked to it about
# that place, the place is one of its own plans (what matters to it may matter to its
# neighbours), it has met them before (it can guess what they need), or the news is of a
# gathering (open to whoever hears of it). The scenario's audience is never read: usefulness is
# the agent's own guess.
USEFUL = {
    "seen_there": 0.6,
    "talked_about": 0.5,
    "own_concern": 0.3,
    "acquainted": 0.3,
    "invitation": 0.4,
}
SURE_AFTER = 3  # sightings or meetings after which a cue holds in full


@dataclass(frozen=True)
class Discretion:
    """What the agent weighs before telling a partner something: its threshold, whom it knows,
    and how far it trusts this partner to keep a secret."""

    threshold: float
    people: Collection[str]  # asked only `in`: the agent's own acquaintances, never copied
    subjects: Mapping[str, str]  # proposition → what it is about
    keeps_secrets: float  # trust in this partner, 0..1


def privacy_cues(
    b: Belief, exp: Experience | None, subject: str, partner: str, people: Collection[str]
) -> float:
    """How private the matter seems when telling `partner`, 0..1."""
    cues = []
    if exp is not None and exp.privacy == "private":
        cues.append(CUES["said_privately"])
    if subject == partner:
        cues.append(CUES["about_listener"])
    elif subject in people:
        cues.append(CUES["about_someone"])
    if not b.first_hand:
        cues.append(CUES["hearsay"])
    kept = 1.0
    for cue in cues:
        kept *= 1.0 - cue
    return 1.0 - kept


def usefulness(
    subjects: Collection[str],
    partner: str,
    experiences: Mapping[int, Experience],
    own_places: Collection[str],
    meetings: int,
) -> dict[str, float]:
    """How useful news about each subject seems to `partner`, 0..1, from the agent's memory
    (whom it saw where, its arrivals' company - a place they were at, or a person they were
    with; who told it about what), its own plans, and how often it has met `partner` before.
    The cues of seeing and of meeting grow with repetition (full at `SURE_AFTER` times)."""
    seen: dict[str, int] = {}
    talked: set[str] = set()
    wanted = set(subjects)
    for e in experiences.values():
        if partner in e.company:
            for subject in sorted(wanted & {e.subject, *e.company}):
                seen[subject] = seen.get(subject, 0) + 1
        if e.told_by == partner and e.subject in wanted:
            talked.add(e.subject)
    out = {}
    for subject in sorted(wanted):
        cues = (
            USEFUL["seen_there"] * min(1.0, seen.get(subject, 0) / SURE_AFTER),
            USEFUL["talked_about"] * (subject in talked),
            USEFUL["own_concern"] * (subject in own_places),
            USEFUL["acquainted"] * min(1.0, meetings / SURE_AFTER),
        )
        kept = 1.0
        for cue in cues:
            kept *= 1.0 - cue
        out[subject] = round(1.0 - kept, 6)
    return out


def news_usefulness(
    meanings: Mapping[str, Meaning], of_subject: Mapping[str, float]
) -> dict[str, float]:
    """How useful each proposition seems to the partner: what it is about, and whether it is
    news of a gathering."""
    out = {}
    for prop, m in sorted(meanings.items()):
        useful = of_subject.get(m.subject, 0.0)
        if m.sense == Sense.GATHERING:
            useful = 1.0 - (1.0 - useful) * (1.0 - USEFUL["invitation"])
        out[prop] = round(useful, 6)
    return out


@dataclass(frozen=True)
class Usefulness:
    """Whether news seems worth telling this partner unasked: its threshold (0: everything is
    worth telling) and how useful each proposition seems to them."""

    threshold: float
    of_news: Mapping[str, float]  # proposition → usefulness to the partner


def tellable(prop: str, b: Belief, partner: str, already: Collection[str]) -> bool:
    """Whether a belief could be news for this partner at all, before privacy and usefulness
    are weighed: held, not told them yet, not theirs, and believed enough."""
    return (
        b.status in ("current", "superseded")
        and prop not in already
        and b.told_by != partner
        and b.confidence >= 0.3
    )


def news_for(
    beliefs: Mapping[str, Belief],
    experiences: Mapping[int, Experience],
    partner: str,
    already: Collection[str],
    urgent: Collection[str],
    discretion: Discretion | None,
    useful: Usefulness | None = None,
) -> list[News]:
    """What this partner has not heard from us, urgent group news first, then the most
    salient; with discretion (privacy respected), a matter whose cues seem private enough goes
    only to those the agent knows are in on it - a strict threshold also holds back useful
    public news, a lax one leaks; a partner trusted to keep secrets is confided in more. News
    that is not urgent goes only to a partner it seems useful to (`useful`): a high bar keeps
    public facts local, a low one spreads them, and hearsay and rumors with them."""
    ranked = []
    for prop, b in sorted(beliefs.items()):
        if not tellable(prop, b, partner, already):
            continue
        worth = 1.0 if useful is None or prop in urgent else useful.of_news.get(prop, 0.0)
        if useful is not None and worth < useful.threshold:
            continue  # not of use to them, as far as the agent can tell: kept local
        exp = experiences.get(b.support[-1]) if b.support else None
        privacy = exp.privacy if exp is not None else "public"
        audience = exp.audience if exp is not None else ()
        if discretion is not None and partner not in audience:
            subject = discretion.subjects.get(prop, "")
            seems = privacy_cues(b, exp, subject, partner, discretion.people)
            bar = discretion.threshold + CONFIDING * (discretion.keeps_secrets - 0.5)
            if seems >= bar:
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
    return Claim(meaning, b.value, Modality(modality), source, Privacy(privacy), audience)
