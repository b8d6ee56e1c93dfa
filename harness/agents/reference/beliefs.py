"""The beliefs component: the agent's current take on each proposition, folded from its
experiences, superseded, forgotten when its support is evicted, outdated when its time has
passed; every change traced (`beliefs`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, replace
from typing import Any

from harness.engine.contract import AgentSetup, Answer, BeliefStatus, Meaning, Modality, Sense
from harness.engine.diagnostics import BeliefChange
from harness.engine.lifecycle import transition

from .context import Diagnostics
from .model import memory as mem
from .model.beliefs import Belief, fold, replaces


class Beliefs:
    def __init__(self, ctx: AgentSetup, log: Diagnostics) -> None:
        self.ctx, self.log = ctx, log
        self.held: dict[str, Belief] = {}
        self.meanings: dict[str, Meaning] = {}

    def get_state(self) -> dict[str, Any]:
        return {
            "held": {k: b.to_json() for k, b in self.held.items()},
            "meanings": {k: asdict(m) for k, m in self.meanings.items()},
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.held = {k: Belief.from_json(v) for k, v in state["held"].items()}
        self.meanings = {k: Meaning(**v) for k, v in state["meanings"].items()}

    def get(self, proposition: str) -> Belief | None:
        return self.held.get(proposition)

    def current(self) -> list[Belief]:
        """The beliefs it holds now (not superseded, outdated or forgotten), by proposition."""
        return [b for _, b in sorted(self.held.items()) if b.status == "current"]

    def set(self, b: Belief, minute: int, eid: int) -> None:
        old = self.held.get(b.proposition)
        transition(None if old is None else old.status, b.status)
        self.held[b.proposition] = b
        self.log.add(
            BeliefChange(
                minute=minute,
                event_id=eid,
                agent=self.ctx.name,
                proposition=b.proposition,
                value=b.value,
                confidence=b.confidence,
                modality=Modality(b.modality),
                origin=b.origin,
                told_by=b.told_by,
                status=b.status,
            )
        )

    def take_in(
        self, exp: mem.Experience, meaning: Meaning, trust: float, minute: int, eid: int
    ) -> Belief | None:
        """The belief after one experience about a proposition (None: nothing changed); a
        newer proposition supersedes the older ones it replaces (`replaces`: by what they
        say, never by the scenario's links), whichever was heard first."""
        new = fold(self.held.get(meaning.proposition), exp, meaning, trust, self.ctx.policy)
        if new is None:
            return None
        newer = next(
            (
                b
                for _, b in sorted(self.held.items())
                if b.status is BeliefStatus.CURRENT and b.value == "true" and replaces(b, new)
            ),
            None,
        )
        if newer is not None and new.status is BeliefStatus.CURRENT:  # known to be replaced
            new = replace(new, status=BeliefStatus.SUPERSEDED, superseded_by=newer.proposition)
        self.set(new, minute, eid)
        if new.status is not BeliefStatus.CURRENT or new.value != "true":
            return new
        for _, older in sorted(self.held.items()):
            if older.status is BeliefStatus.CURRENT and replaces(new, older):
                self.set(
                    replace(older, status=BeliefStatus.SUPERSEDED, superseded_by=new.proposition),
                    minute,
                    eid,
                )
        return new

    def forget(self, evicted: list[mem.Experience], minute: int, eid: int) -> None:
        """A belief all of whose experiences were evicted is forgotten."""
        if not evicted:
            return
        gone = {e.id for e in evicted}
        for _, b in sorted(self.held.items()):
            if b.status is BeliefStatus.CURRENT and b.support and set(b.support) <= gone:
                self.set(replace(b, status=BeliefStatus.FORGOTTEN), minute, eid)

    def rebase(self, summary: mem.Experience, now: int) -> None:
        """A belief whose experiences were summarised now rests on the summary — and knows
        only the sources the summary kept."""
        b = self.held.get(summary.proposition or "")
        if b is None or not set(b.support) & set(summary.evidence):
            return
        support = (*[i for i in b.support if i not in summary.evidence], summary.id)
        told_by, origin = (
            (b.told_by, b.origin) if b.first_hand else (summary.told_by, summary.origin)
        )
        changed = replace(b, support=support, told_by=told_by, origin=origin)
        if (changed.told_by, changed.origin) != (b.told_by, b.origin):
            self.set(changed, now, 0)
        else:
            self.held[b.proposition] = changed

    def outdate(self, now: int) -> None:
        """Beliefs whose validity has passed are outdated."""
        for _, b in sorted(self.held.items()):
            if b.status is BeliefStatus.CURRENT and b.valid_to is not None and b.valid_to <= now:
                self.set(replace(b, status=BeliefStatus.OUTDATED), now, 0)

    def recalled(self, recalls: Iterable[mem.Recall]) -> list[Belief]:
        """The beliefs the recalled experiences are about: what is in mind for a plan."""
        return [
            self.held[r.experience.proposition]
            for r in recalls
            if r.experience.proposition in self.held
        ]

    def places_kept(self, recalls: Iterable[mem.Recall], resource: str) -> tuple[str, ...]:
        """Where the recalled beliefs say `resource` is kept (current, true), in recall order."""
        places: list[str] = []
        for r in recalls:
            b = self.held.get(r.experience.proposition or "")
            if (
                b is not None
                and b.status is BeliefStatus.CURRENT
                and b.subject == resource
                and b.sense == Sense.KEPT_AT
                and b.value == "true"
                and b.object not in places
            ):
                places.append(b.object)
        return tuple(places)

    def answer(self, proposition: str) -> Answer:
        b = self.held.get(proposition)
        if b is None or b.status is BeliefStatus.FORGOTTEN:
            return Answer(None, None, None)
        replaced = b.replaced[-1] if b.replaced else None  # what the value now replaced
        if b.first_hand:
            return Answer(b.value, Modality(b.modality), "self", "self", b.superseded_by, replaced)
        return Answer(b.value, Modality(b.modality), b.told_by, b.origin, b.superseded_by, replaced)
