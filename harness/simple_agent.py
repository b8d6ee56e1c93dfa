"""A deliberately simple agent: it keeps only its last few claims and repeats them.

It exists to prove the interface is real: it runs through the same tick loop and is scored by
the same scorecard as the reference agent, from what it observably says and does. It has no
memory model, so internal metrics (memory_noise, memory_load) are absent for it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from scenarios import AgentSpec

from .contract import Answer, Claim, Intent, Meaning, Observation
from .planning import BLOCKERS, Slot, daily_schedule

KEEP = 3  # claims remembered; older ones are simply gone


class SimpleAgent:
    def __init__(
        self, spec: AgentSpec, policy: Any, draws: Any, start: int, end: int, tick_minutes: int
    ) -> None:
        self.name, self.spec = spec.id, spec
        self.schedule: list[Slot] = daily_schedule(spec, draws, start, end, tick_minutes)
        self.errands = {e.id: e for e in spec.errands}
        self.recent: list[Claim] = []  # newest last
        self.told: list[str] = []  # "partner|proposition"
        self.cursor = 0
        self.busy = False

    def observe(self, obs: Observation) -> None:
        if obs.kind in ("notice", "claim") and obs.meaning is not None and obs.value:
            source = "self" if obs.speaker is None else obs.speaker
            claim = Claim(
                obs.meaning, obs.value, obs.modality or "certain", source, obs.privacy, obs.audience
            )
            self.recent = [c for c in self.recent if c.proposition != claim.proposition]
            self.recent = [*self.recent, claim][-KEEP:]
        elif obs.kind == "action_result":
            self.busy = False

    def decide(self, now: int) -> list[Intent]:
        intents: list[Intent] = []
        while self.cursor < len(self.schedule) and self.schedule[self.cursor].minute <= now:
            slot = self.schedule[self.cursor]
            self.cursor += 1
            if self.busy:
                continue
            if slot.kind == "errand":
                errand = self.errands[slot.errand or ""]
                target = errand.target
                if errand.alternatives and self._blocked((errand.target, *errand.via), slot.day):
                    target = errand.alternatives[0]
                intents.append(
                    Intent("act", target, errand.action, None, f"{errand.id}@{slot.day}")
                )
                self.busy = True
            elif slot.kind == "move":
                intents.append(Intent("move", slot.place or self.spec.home))
        return intents

    def wake_at(self, now: int) -> int:
        if self.busy or self.cursor >= len(self.schedule):
            return 1 << 40
        return max(now, self.schedule[self.cursor].minute)

    def _blocked(self, places: tuple[str, ...], day: int) -> bool:
        return any(
            c.meaning.subject in places
            and c.meaning.predicate in BLOCKERS
            and c.meaning.object == str(day)
            and c.value == "true"
            for c in self.recent
        )

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

    def drain_diagnostics(self) -> list[tuple[str, dict[str, Any]]]:
        return []
