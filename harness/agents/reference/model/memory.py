"""Episodic memory, one isolated namespace per agent: immutable experiences, retention, retrieval.

Retrieval ranks by recency (retention r), importance, relevance to the query and mood
congruence, puts the salient cache first, adds deterministic noise, and may return nothing.
Strength grows only on real use: S' = S × (1 + 1.2 × (1 − r)); age always counts from the
write. Capacity evicts by importance × retention. Summaries merge old experiences (keeping
or dropping sources by policy); reflections are hypotheses with evidence and counter-evidence.
Neither is ever evidence for a belief.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.engine.records import quick_init

BASE_STRENGTH = 720.0  # minutes: a plain experience is half-forgotten after about 8 hours
MIN_ACTIVATION = 0.5  # below this a memory does not come to mind at all
NOISE = 0.2  # width of the retrieval noise
HIGHEST_NOISE = NOISE * 0.5  # not reached: a draw is below 1
IMPORTANCE_WEIGHT = 0.3
SALIENT_BONUS = 0.5
MOOD_WEIGHT = 0.3


@quick_init
@dataclass(frozen=True)
class Experience:
    """What one agent perceived, was told, did — or, for kind summary/reflection, concluded.

    Never edited after the write.
    """

    id: int  # counted per agent, so ids never depend on other agents or on the worker
    owner: str
    minute: int
    event_id: int
    channel: str  # seen / heard / read / told / did / inner
    subject: str
    importance: float
    kind: str = "experience"  # experience / summary / reflection
    proposition: str | None = None
    value: str | None = None
    modality: str | None = None
    told_by: str | None = None  # the informant, when the policy keeps sources
    origin: str | None = None  # the origin the informant stated, when kept
    confidence: float = 1.0
    valence: float = 0.0  # how it felt, -1..1: mood-congruent recall
    privacy: str = "public"
    audience: tuple[str, ...] = ()
    company: tuple[str, ...] = ()  # who else was there (an arrival): whom it has seen where
    evidence: tuple[int, ...] = ()  # summary: merged ids; reflection: supporting ids
    counter: tuple[int, ...] = ()  # reflection: contradicting ids

    @property
    def first_hand(self) -> bool:
        return self.channel in ("seen", "heard", "read", "did")

    @property
    def is_evidence(self) -> bool:
        return self.kind == "experience"


@dataclass
class Memory:
    owner: str
    capacity: int
    experiences: dict[int, Experience] = field(default_factory=dict)
    strength: dict[int, float] = field(default_factory=dict)
    next_id: int = 1
    # where eviction looks first; derived from the fields above, never saved or compared
    candidates: EvictionOrder | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "owner": self.owner,
            "capacity": self.capacity,
            "next_id": self.next_id,
            "experiences": [asdict(e) for e in self.experiences.values()],
            "strength": [[k, v] for k, v in self.strength.items()],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Memory:
        def experience(e: dict[str, Any]) -> Experience:
            return Experience(
                **{**e, **{k: tuple(e[k]) for k in ("audience", "company", "evidence", "counter")}}
            )

        return cls(
            owner=data["owner"],
            capacity=data["capacity"],
            next_id=data["next_id"],
            experiences={e["id"]: experience(e) for e in data["experiences"]},
            strength={int(k): float(v) for k, v in data["strength"]},
        )


def retention(memory: Memory, exp: Experience, now: int) -> float:
    return math.exp(-max(0, now - exp.minute) / memory.strength[exp.id])


def eviction_key(memory: Memory, exp: Experience, now: int) -> tuple[float, int]:
    """What eviction minimises: importance × retention now, then the id (oldest first)."""
    return (exp.importance * retention(memory, exp, now), exp.id)


class EvictionOrder:
    """A heap of lower bounds on the eviction keys, so that a full memory does not rescan
    every experience on each write (at 1,000 agents that scan was a large share of a day).

    Keys are computed at one minute `since`; afterwards a key can only have decayed, and no
    faster than the quickest decay of any experience (the least strength, which use only
    raises). So key(since) × exp(-(now - since) / least strength) bounds key(now) from below,
    with one factor for all entries: the heap's order is the order of the bounds. Only
    entries whose bound is not above the best exact key found are looked at, each with the
    exact key that a full scan would compute, so the victim is the very one `min` over all
    would choose. When too many entries must be looked at, the keys are computed anew.
    """

    RECOMPUTE_AFTER = 32  # entries looked at in one eviction before the keys are renewed
    SLACK = 1e-9  # relative margin for rounding in the bound

    def __init__(self, memory: Memory, now: int) -> None:
        self.since = now
        self.least_strength = min(memory.strength.values(), default=BASE_STRENGTH)
        self.heap = [(eviction_key(memory, e, now)[0], e.id) for e in memory.experiences.values()]
        heapq.heapify(self.heap)
        # a negative importance would make keys grow as they decay: then always scan
        self.exact = all(e.importance >= 0 for e in memory.experiences.values())

    def add(self, memory: Memory, exp: Experience) -> None:
        self.least_strength = min(self.least_strength, memory.strength[exp.id])
        self.exact = self.exact and exp.importance >= 0
        heapq.heappush(self.heap, (eviction_key(memory, exp, self.since)[0], exp.id))

    def pop_least(self, memory: Memory, now: int) -> Experience:
        """The experience `min(eviction_key)` over all would choose, taken out of the heap."""
        if not self.exact or now < self.since:
            return min(memory.experiences.values(), key=lambda e: eviction_key(memory, e, now))
        decay = math.exp(-(now - self.since) / self.least_strength) * (1.0 - self.SLACK)
        best: tuple[float, int] | None = None
        looked: list[tuple[float, int]] = []
        while self.heap:
            bound, exp_id = self.heap[0]
            if exp_id not in memory.experiences:  # merged into a summary since
                heapq.heappop(self.heap)
                continue
            if best is not None and bound * decay > best[0]:
                break
            looked.append(heapq.heappop(self.heap))
            key = eviction_key(memory, memory.experiences[exp_id], now)
            best = key if best is None or key < best else best
        assert best is not None, "eviction from an empty memory"
        for entry in looked:
            if entry[1] != best[1]:
                heapq.heappush(self.heap, entry)
        if len(looked) > self.RECOMPUTE_AFTER:
            self.__init__(memory, now)  # type: ignore[misc]
        return memory.experiences[best[1]]


def write(
    memory: Memory, now: int, event_id: int, **fields: Any
) -> tuple[Experience, list[Experience]]:
    """Store a new experience; returns it and whatever capacity evicted to make room."""
    exp = Experience(id=memory.next_id, owner=memory.owner, minute=now, event_id=event_id, **fields)
    memory.next_id += 1
    memory.experiences[exp.id] = exp
    memory.strength[exp.id] = BASE_STRENGTH * (1.0 + exp.importance)
    if memory.candidates is not None:
        memory.candidates.add(memory, exp)
    evicted: list[Experience] = []
    while len(memory.experiences) > memory.capacity:
        # the least important, least retained experience goes; ties go to the oldest id
        if memory.candidates is None:
            memory.candidates = EvictionOrder(memory, now)
        victim = memory.candidates.pop_least(memory, now)
        del memory.experiences[victim.id]
        del memory.strength[victim.id]
        evicted.append(victim)
    return exp, evicted


@quick_init
@dataclass(frozen=True)
class Query:
    subject: str
    purpose: str  # e.g. "plan"; part of the noise key
    related: tuple[str, ...] = ()  # subjects that count as half relevant
    # asked about one matter: only its experiences are fully relevant, the rest of its
    # subject half (what else happened at the market competes for a place in mind)
    proposition: str | None = None


@quick_init
@dataclass(frozen=True)
class Recall:
    experience: Experience
    relevant: bool


def retrieve(
    memory: Memory, query: Query, now: int, policy: Any, noise: Any, mood: float = 0.0
) -> list[Recall]:
    """The experiences that come to mind for a query, best first; may be empty. Pure."""
    top_k = int(policy["retrieval.top_k"])
    w_rel = float(policy["retrieval.relevance_weight"])
    w_rec = float(policy["retrieval.recency_weight"])
    salient = float(policy["memory.importance_threshold"])
    draw = noise.series("retrieval", memory.owner, query.purpose, now)  # keyed by exp.id
    subject, related, proposition = query.subject, query.related, query.proposition
    strength, exp_ = memory.strength, math.exp
    candidates = []  # what may come to mind, with its activation before noise
    for exp in memory.experiences.values():
        relevance = 1.0 if exp.subject == subject else 0.5 if exp.subject in related else 0.0
        if proposition is not None and exp.proposition != proposition:
            relevance /= 2
        activation = (
            # retention(memory, exp, now) written out: the loop runs over every experience
            w_rec * exp_(-max(0, now - exp.minute) / strength[exp.id])
            + IMPORTANCE_WEIGHT * exp.importance
            + w_rel * relevance
            + MOOD_WEIGHT * mood * exp.valence
            + (SALIENT_BONUS if exp.importance >= salient else 0.0)
        )
        if activation + HIGHEST_NOISE < MIN_ACTIVATION:
            continue  # below the bar whatever its noise (rounding is monotone): not drawn
        candidates.append((activation, exp, relevance > 0))
    # the top k come to mind at least as strongly as the k-th strongest with the lowest noise:
    # one below that even with the highest noise is not among them, and is not drawn
    floor = -math.inf
    if 0 < top_k < len(candidates):
        floor = sorted([c[0] for c in candidates], reverse=True)[top_k - 1] - HIGHEST_NOISE
    scored = []
    for activation, exp, relevant in candidates:
        if activation + HIGHEST_NOISE < floor:
            continue
        activation += NOISE * (draw(exp.id) - 0.5)
        if activation >= MIN_ACTIVATION:
            scored.append((-activation, exp.id, exp, relevant))
    scored.sort()
    return [Recall(exp, relevant) for _, _, exp, relevant in scored[:top_k]]


def strengthen(memory: Memory, used: list[Experience], now: int) -> None:
    """Real use makes a memory last longer, more so the more it had faded."""
    for exp in used:
        r = retention(memory, exp, now)
        memory.strength[exp.id] *= 1.0 + 1.2 * (1.0 - r)


def summarise(
    memory: Memory,
    now: int,
    event_id: int,
    older_than: int,
    keep_source: bool,
    noise: Any = None,
) -> tuple[list[Experience], list[Experience]]:
    """Merge old experiences about the same proposition into one summary each.

    Returns (summaries written, experiences merged away). The summary keeps the strongest
    confidence and the highest importance; it keeps the informant and stated origin only if
    `keep_source` - and, given keyed `noise`, only with a chance equal to how well the
    experiences that carried the source are still retained: sources fade with the memories
    that held them (what was used lately keeps its source, what faded loses it). A summary is
    never evidence: beliefs keep their own links.
    """
    groups: dict[str, list[Experience]] = {}
    for exp in memory.experiences.values():
        # the proposition first: most experiences (chats, arrivals) have none
        if exp.proposition is not None and exp.is_evidence and now - exp.minute >= older_than:
            groups.setdefault(exp.proposition, []).append(exp)
    written, merged = [], []
    for prop in sorted(groups):
        group = sorted(groups[prop], key=lambda e: e.id)
        if len(group) < 2:
            continue
        best = max(group, key=lambda e: (e.confidence, e.id))
        kept = keep_source
        sourced = [retention(memory, e, now) for e in group if e.told_by or e.origin]
        if kept and noise is not None and sourced:
            kept = noise.uniform("source", memory.owner, prop, now) < max(sourced)
        for exp in group:
            del memory.experiences[exp.id]
            del memory.strength[exp.id]
        summary, _ = write(
            memory,
            now,
            event_id,
            channel="inner",
            subject=best.subject,
            kind="summary",
            importance=max(e.importance for e in group),
            proposition=prop,
            value=best.value,
            modality=best.modality,
            confidence=best.confidence,
            told_by=best.told_by if kept else None,
            origin=best.origin if kept else None,
            privacy=best.privacy,
            audience=best.audience,
            evidence=tuple(e.id for e in group),
        )
        written.append(summary)
        merged.extend(group)
    return written, merged


def reflect(memory: Memory, now: int, event_id: int) -> tuple[list[Experience], list[Experience]]:
    """Hypotheses where experiences about a proposition disagree: evidence and counter-evidence.

    Only experiences count (never a summary or an earlier reflection), so a reflection can
    never cite itself; one reflection per proposition and set of evidence. Returns
    (reflections written, experiences evicted to make room).
    """
    by_prop: dict[str, list[Experience]] = {}
    for exp in memory.experiences.values():
        if exp.proposition is not None and exp.is_evidence:
            by_prop.setdefault(exp.proposition, []).append(exp)
    existing = {
        (e.proposition, e.evidence, e.counter)
        for e in memory.experiences.values()
        if e.kind == "reflection"
    }
    out: list[Experience] = []
    evicted: list[Experience] = []
    for prop in sorted(by_prop):
        values: dict[str, list[int]] = {}
        for exp in sorted(by_prop[prop], key=lambda e: e.id):
            values.setdefault(exp.value or "", []).append(exp.id)
        if len(values) < 2:
            continue
        ranked = sorted(values.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        (value, evidence), rest = ranked[0], ranked[1:]
        counter = tuple(sorted(i for _, ids in rest for i in ids))
        if (prop, tuple(evidence), counter) in existing:
            continue
        confidence = len(evidence) / (len(evidence) + len(counter))
        subject = by_prop[prop][0].subject
        reflection, gone = write(
            memory,
            now,
            event_id,
            channel="inner",
            subject=subject,
            kind="reflection",
            importance=0.5,
            proposition=prop,
            value=value,
            modality="likely",
            confidence=round(confidence, 6),
            evidence=tuple(evidence),
            counter=counter,
        )
        out.append(reflection)
        evicted.extend(gone)
    return out, evicted
