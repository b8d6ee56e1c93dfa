"""Episodic memory, one isolated namespace per agent: immutable experiences, retention, retrieval.

Retrieval ranks by recency (retention r), importance, relevance to the query and a salient
bonus, with deterministic noise, and may return nothing. Strength grows only on real use:
S' = S × (1 + 1.2 × (1 − r)); age always counts from the write.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

BASE_STRENGTH = 720.0  # minutes: a plain experience is half-forgotten after about 8 hours
MIN_ACTIVATION = 0.5  # below this a memory does not come to mind at all
NOISE = 0.2  # width of the retrieval noise
IMPORTANCE_WEIGHT = 0.3


@dataclass(frozen=True)
class Experience:
    """What one agent perceived, was told or did. Never edited after the write."""

    id: int  # counted per agent, so ids never depend on other agents or on the worker
    owner: str
    minute: int
    event_id: int
    channel: str  # seen / heard / read / told / did
    subject: str  # what it is about: a place, an agent, a topic
    importance: float
    proposition: str | None = None
    value: str | None = None
    modality: str | None = None
    told_by: str | None = None  # the informant, when the policy keeps sources
    origin: str | None = None  # the origin the informant stated, when kept
    confidence: float = 1.0

    @property
    def first_hand(self) -> bool:
        return self.channel in ("seen", "heard", "read", "did")


@dataclass
class Memory:
    owner: str
    capacity: int
    experiences: dict[int, Experience] = field(default_factory=dict)
    strength: dict[int, float] = field(default_factory=dict)
    next_id: int = 1

    def to_json(self) -> dict[str, Any]:
        return {
            "owner": self.owner, "capacity": self.capacity, "next_id": self.next_id,
            "experiences": [asdict(e) for e in self.experiences.values()],
            "strength": [[k, v] for k, v in self.strength.items()],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Memory:
        return cls(
            owner=data["owner"], capacity=data["capacity"], next_id=data["next_id"],
            experiences={e["id"]: Experience(**e) for e in data["experiences"]},
            strength={int(k): float(v) for k, v in data["strength"]},
        )


def retention(memory: Memory, exp: Experience, now: int) -> float:
    return math.exp(-max(0, now - exp.minute) / memory.strength[exp.id])


def write(memory: Memory, now: int, event_id: int, **fields: Any) -> tuple[Experience, list[Experience]]:
    """Store a new experience; returns it and whatever capacity evicted to make room."""
    exp = Experience(id=memory.next_id, owner=memory.owner, minute=now, event_id=event_id, **fields)
    memory.next_id += 1
    memory.experiences[exp.id] = exp
    memory.strength[exp.id] = BASE_STRENGTH * (1.0 + exp.importance)
    evicted: list[Experience] = []
    while len(memory.experiences) > memory.capacity:
        # the least important, least retained experience goes; ties go to the oldest id
        victim = min(memory.experiences.values(),
                     key=lambda e: (e.importance * retention(memory, e, now), e.id))
        del memory.experiences[victim.id]
        del memory.strength[victim.id]
        evicted.append(victim)
    return exp, evicted


@dataclass(frozen=True)
class Query:
    subject: str
    purpose: str  # e.g. "plan"; part of the noise key


def retrieve(memory: Memory, query: Query, now: int, policy: Any, noise: Any) -> list[Experience]:
    """The experiences that come to mind for a query, best first; may be empty. Pure."""
    top_k = int(policy["retrieval.top_k"])
    w_rel = float(policy["retrieval.relevance_weight"])
    w_rec = float(policy["retrieval.recency_weight"])
    salient = float(policy["memory.importance_threshold"])
    scored = []
    for exp in memory.experiences.values():
        relevance = 1.0 if exp.subject == query.subject else 0.0
        activation = (w_rec * retention(memory, exp, now) + IMPORTANCE_WEIGHT * exp.importance
                      + w_rel * relevance + (0.5 if exp.importance >= salient else 0.0)
                      + NOISE * (noise.uniform("retrieval", memory.owner, query.purpose, now,
                                               exp.id) - 0.5))
        if activation >= MIN_ACTIVATION:
            scored.append((-activation, exp.id, exp))
    scored.sort()
    return [exp for _, _, exp in scored[:top_k]]


def strengthen(memory: Memory, used: list[Experience], now: int) -> None:
    """Real use makes a memory last longer, more so the more it had faded."""
    for exp in used:
        r = retention(memory, exp, now)
        memory.strength[exp.id] *= 1.0 + 1.2 * (1.0 - r)
