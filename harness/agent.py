"""The reference cognitive agent: memory, beliefs, conversation and plans (DESIGN §2).

The tick loop is the only caller of the mutating methods. `answer` is a read: a probe leaves
the state — and so `state_hash()` — unchanged. All state round-trips through plain JSON.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any

from . import memory as mem
from .beliefs import Belief, from_experience
from .contract import Answer, Claim, Meaning

def _plain(value: Any) -> Any:
    """Dataclasses (nested in dicts) as plain JSON-ready data."""
    if is_dataclass(value):
        return asdict(value)  # type: ignore[arg-type]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return list(value)
    return value


PLAN_BLOCKERS = ("closed_on", "blocked_on")  # predicates that make a place unusable on a day


@dataclass
class PlanEntry:
    errand: str
    day: int
    action: str
    target: str
    plan_id: int
    reason: str  # routine / retrieved / replanned


@dataclass
class ReferenceAgent:
    name: str
    home: str
    groups: tuple[str, ...]
    policy: Any = field(repr=False)
    memory: mem.Memory = field(repr=False, default=None)  # type: ignore[assignment]
    location: str | None = None
    destination: str | None = None
    arrive_at: int | None = None
    pending_action: str | None = None  # the errand id to carry out on arrival
    beliefs: dict[str, Belief] = field(default_factory=dict)
    trust: dict[str, float] = field(default_factory=dict)
    told: dict[str, list[str]] = field(default_factory=dict)  # listener → propositions told
    last_chat: dict[str, int] = field(default_factory=dict)
    plans: dict[str, PlanEntry] = field(default_factory=dict)  # "errand@day" → plan
    group_news: list[str] = field(default_factory=list)  # propositions to tell the group
    next_plan_id: int = 1

    def __post_init__(self) -> None:
        if self.memory is None:
            self.memory = mem.Memory(self.name, int(self.policy["memory.capacity"]))
        if self.location is None and self.destination is None:
            self.location = self.home

    # --- perception and belief -------------------------------------------------------------
    def remember(self, now: int, event_id: int, **fields: Any) -> tuple[mem.Experience,
                                                                       list[mem.Experience]]:
        if not self.policy["memory.keep_source"]:
            fields = {**fields, "told_by": None, "origin": None}
        return mem.write(self.memory, now, event_id, **fields)

    def update_belief(self, exp: mem.Experience, meaning: Meaning) -> Belief | None:
        """Fold an experience about a proposition into the belief; returns the new belief."""
        old = self.beliefs.get(meaning.proposition)
        trust = self.trust.get(exp.told_by or "", float(self.policy["trust.prior"]))
        new = from_experience(old, exp, (meaning.subject, meaning.predicate, meaning.object),
                              trust, self.policy)
        if new is not None:
            self.beliefs[meaning.proposition] = new
        return new

    def forget(self, evicted: list[mem.Experience]) -> list[Belief]:
        """Beliefs whose every supporting experience was evicted are forgotten."""
        gone = {e.id for e in evicted}
        changed = []
        for prop, belief in sorted(self.beliefs.items()):
            if belief.status == "current" and belief.support and set(belief.support) <= gone:
                self.beliefs[prop] = Belief(**{**asdict(belief), "status": "forgotten"})
                changed.append(self.beliefs[prop])
        return changed

    # --- plans ---------------------------------------------------------------------------------
    def blocked(self, place: str, day: int, beliefs: list[Belief]) -> Belief | None:
        trigger = float(self.policy["replan.trigger_confidence"])
        for b in beliefs:
            if (b.status == "current" and b.subject == place and b.predicate in PLAN_BLOCKERS
                    and b.object == str(day) and b.value == "true" and b.confidence >= trigger):
                return b
        return None

    def plan_errand(self, errand: Any, day: int, now: int, noise: Any) -> PlanEntry:
        """Tomorrow's plan sees only what retrieval returns for the errand's place."""
        recalled = mem.retrieve(self.memory, mem.Query(errand.target, "plan"), now, self.policy,
                                noise)
        mem.strengthen(self.memory, recalled, now)
        in_mind = [self.beliefs[e.proposition] for e in recalled
                   if e.proposition is not None and e.proposition in self.beliefs]
        target, reason = errand.target, "routine"
        if self.blocked(errand.target, day, in_mind) is not None and errand.alternatives:
            target, reason = errand.alternatives[0], "retrieved"
        return self._set_plan(errand.id, day, errand.action, target, reason)

    def replan_for(self, belief: Belief, errands: Any) -> list[PlanEntry]:
        """A new belief that blocks a plan above the trigger changes it at once."""
        changed = []
        for key, plan in sorted(self.plans.items()):
            errand = next(e for e in errands if e.id == plan.errand)
            if plan.target == belief.subject and errand.alternatives \
                    and self.blocked(plan.target, plan.day, [belief]) is not None:
                alternative = next((a for a in errand.alternatives if a != plan.target), None)
                if alternative is not None:
                    changed.append(self._set_plan(plan.errand, plan.day, plan.action,
                                                  alternative, "replanned"))
                    if self.policy["replan.notify_group"] and self.groups \
                            and belief.proposition not in self.group_news:
                        self.group_news.append(belief.proposition)
        return changed

    def _set_plan(self, errand: str, day: int, action: str, target: str, reason: str) -> PlanEntry:
        entry = PlanEntry(errand, day, action, target, self.next_plan_id, reason)
        self.next_plan_id += 1
        self.plans[f"{errand}@{day}"] = entry
        return entry

    # --- conversation ----------------------------------------------------------------------------
    def claims_for(self, listener: str, listener_groups: tuple[str, ...], now: int,
                   noise: Any) -> list[Claim]:
        """What to tell this listener now: fresh, salient news, within the sharing rules."""
        group_mate = bool(set(self.groups) & set(listener_groups))
        must = [p for p in self.group_news if group_mate]
        if not must and noise.uniform("share", self.name, listener, now) \
                >= float(self.policy["sharing.proactive"]):
            return []
        already = set(self.told.get(listener, []))
        candidates = []
        for prop, b in sorted(self.beliefs.items()):
            if b.status != "current" or prop in already or b.confidence < 0.3:
                continue
            candidates.append((prop not in must, -b.confidence, prop, b))
        candidates.sort(key=lambda c: c[:3])
        return [self._claim(b, listener) for *_, b in
                candidates[: int(self.policy["sharing.claims_per_chat"])]]

    def _claim(self, b: Belief, listener: str) -> Claim:
        threshold = float(self.policy["hedging.qualifier_threshold"])
        modality = b.modality
        if b.confidence < threshold:
            modality = "rumor" if b.confidence < threshold / 2 else "likely"
            if b.modality == "rumor":
                modality = "rumor"
        if b.first_hand:
            source = "self"
        elif self.policy["hedging.mark_second_hand"]:
            source = b.told_by  # may be None when the source was not kept
        else:
            source = None
        return Claim(proposition=b.proposition, subject=b.subject, predicate=b.predicate,
                     object=b.object, value=b.value, modality=modality, stated_source=source,
                     privacy="public")

    def mark_told(self, listener: str, proposition: str) -> None:
        self.told.setdefault(listener, []).append(proposition)
        if proposition in self.group_news:
            pass  # group news stays until every group mate met; kept simple in this cut

    # --- probes (reads) ------------------------------------------------------------------------
    def answer(self, proposition: str) -> Answer:
        b = self.beliefs.get(proposition)
        if b is None or b.status in ("forgotten",):
            return Answer(None, None, None)
        source = "self" if b.first_hand else b.told_by
        return Answer(b.value, b.modality, source)

    # --- state -----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        data = {f.name: _plain(getattr(self, f.name)) for f in fields(self)
                if f.name not in ("policy", "memory")}
        data["memory"] = self.memory.to_json()
        return data

    def state_hash(self) -> str:
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    @classmethod
    def from_json(cls, data: dict[str, Any], policy: Any) -> ReferenceAgent:
        data = dict(data)
        memory = mem.Memory.from_json(data.pop("memory"))
        beliefs = {k: Belief(**{**v, "support": tuple(v["support"]),
                                "informants": tuple(v["informants"])})
                   for k, v in data.pop("beliefs").items()}
        plans = {k: PlanEntry(**v) for k, v in data.pop("plans").items()}
        return cls(policy=policy, memory=memory, beliefs=beliefs, plans=plans,
                   **{**data, "groups": tuple(data["groups"])})
