"""A deliberately simple agent: it keeps only its last few claims and repeats them.

It exists to prove the interface is real: it runs through the same tick loop and is scored by
the same scorecard as the reference agent, from what it observably says and does, and it uses
nothing but the contract. It has no memory model, so internal metrics (memory_noise,
memory_load) are absent for it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from harness.engine.contract import (
    AgentSetup,
    Answer,
    Claim,
    DiagnosticRow,
    Intent,
    IntentKind,
    Meaning,
    Modality,
    Observation,
    ObservationKind,
    Sense,
)

KEEP = 3  # claims remembered; older ones are simply gone
DAY = 24 * 60  # minutes; day 1 starts at minute 0


def day_plan(spec: Any, start: int, end: int) -> list[tuple[int, str, str, int]]:
    """The day as the agent's spec (`AgentSetup.spec`) writes it, with no variation: (minute,
    "errand"|"move", errand id or place, day), in time order; a routine slot goes to its first
    place."""
    out = []
    for day in range(start // DAY + 1, end // DAY + 2):
        base = (day - 1) * DAY
        out += [(base + e.at, "errand", e.id, day) for e in spec.errands if day in e.days]
        out += [(base + r.at, "move", r.go[0], day) for r in spec.routine]
    return sorted(x for x in out if start <= x[0] <= end)


class SimpleAgent:
    policy_surface = ()  # it reads no policy: a search has nothing to change

    def __init__(self, setup: AgentSetup) -> None:
        spec = setup.spec
        self.name, self.spec = spec.id, spec
        self.schedule = day_plan(spec, setup.start, setup.end)
        self.errands = {e.id: e for e in spec.errands}
        self.recent: list[Claim] = []  # newest last
        self.told: list[str] = []  # "partner|proposition"
        self.cursor = 0
        self.busy = False

    def observe(self, obs: Observation) -> None:
        if (
            obs.kind in (ObservationKind.NOTICE, ObservationKind.CLAIM)
            and obs.meaning
            and obs.value
        ):
            source = "self" if obs.speaker is None else obs.speaker
            claim = Claim(
                obs.meaning,
                obs.value,
                obs.modality or Modality.CERTAIN,
                source,
                obs.privacy,
                obs.audience,
            )
            self.recent = [c for c in self.recent if c.proposition != claim.proposition]
            self.recent = [*self.recent, claim][-KEEP:]
        elif obs.kind is ObservationKind.ACTION_RESULT:
            self.busy = False

    def decide(self, now: int) -> list[Intent]:
        intents: list[Intent] = []
        while self.cursor < len(self.schedule) and self.schedule[self.cursor][0] <= now:
            _, kind, what, day = self.schedule[self.cursor]
            self.cursor += 1
            if self.busy:
                continue
            if kind == "errand":
                errand = self.errands[what]
                target = errand.target
                blocker = self._blocker((errand.target, *errand.via), day)
                if blocker is not None and blocker.meaning.sense == Sense.MOVED_TO:
                    target = blocker.meaning.object  # the news said where
                elif blocker is not None:  # the first other place it knows for the action
                    known = self.spec.knows_where.get(errand.action, ())
                    target = next((p for p in known if p != errand.target), errand.target)
                intents.append(
                    Intent(IntentKind.ACT, target, errand.action, None, f"{errand.id}@{day}")
                )
                self.busy = True
            else:
                intents.append(Intent(IntentKind.MOVE, what))
        return intents

    def wake_at(self, now: int) -> int:
        if self.busy or self.cursor >= len(self.schedule):
            return 1 << 40
        return max(now, self.schedule[self.cursor][0])

    def _blocker(self, places: tuple[str, ...], day: int) -> Claim | None:
        """The latest remembered claim that one of `places` cannot be used that day (or that
        what happens there moved)."""
        for c in reversed(self.recent):
            sense, subject = c.meaning.sense, c.meaning.subject
            unusable = sense == Sense.UNUSABLE and c.meaning.object == str(day)
            if subject in places and c.value == "true" and (unusable or sense == Sense.MOVED_TO):
                return c
        return None

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        out = [c for c in self.recent if f"{partner}|{c.proposition}" not in self.told]
        self.told.extend(f"{partner}|{c.proposition}" for c in out)
        return out

    def answer(self, proposition: str, now: int) -> Answer:
        for claim in reversed(self.recent):
            if claim.proposition == proposition:
                return Answer(claim.value, claim.modality, claim.stated_source)
        return Answer(None, None, None)

    def get_state(self) -> dict[str, Any]:
        return {
            "recent": [asdict(c) for c in self.recent],
            "told": list(self.told),
            "cursor": self.cursor,
            "busy": self.busy,
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.recent = [
            Claim(**{**c, "meaning": Meaning(**c["meaning"]), "audience": tuple(c["audience"])})
            for c in state["recent"]
        ]
        self.told, self.cursor, self.busy = list(state["told"]), state["cursor"], state["busy"]

    def drain_diagnostics(self) -> list[DiagnosticRow]:
        return []
