"""The character's practices (tidying before sleep, writing it down after a crisis night):
which were done for their cue, the one under way, and when it last answered with the safety
script (the cue of a practice after a crisis). Each done is traced as a plan (`practice`)."""

from __future__ import annotations

from typing import Any

from harness.engine.contract import AgentSetup, Intent, IntentKind
from harness.engine.diagnostics import PlanNote
from scenarios.clock import day_of

from ..context import Diagnostics
from . import urges
from .agenda import Busy

TAKES = 10  # minutes a practice keeps it busy


class Practices:
    def __init__(self, setup: AgentSetup, log: Diagnostics) -> None:
        assert setup.spec.companion is not None
        self.name, self.persona, self.home = setup.name, setup.spec.companion, setup.spec.home
        self.log = log
        self.practiced: dict[str, int] = {}  # practice → the day (or night) it was done
        self.busy = Busy()  # the practice under way and when it ends
        self.crisis: int | None = None  # when it last answered with the safety script

    def get_state(self) -> dict[str, Any]:
        return {
            "practiced": dict(self.practiced),
            "busy": self.busy.to_json(),
            "crisis": self.crisis,
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.practiced = dict(state["practiced"])
        self.busy = Busy.from_json(state["busy"])
        self.crisis = state["crisis"]

    def scripted(self, now: int) -> None:
        """It answered a line with the safety script: a practice after a crisis may follow."""
        self.crisis = now

    def due(self, now: int, pressing: bool, promises_first: bool) -> list[Intent]:
        """Practices due at their cue; one that may be postponed waits while a promise is
        falling due (`pressing`), if promises come first by its values."""
        out = []
        for p in urges.practices_due(self.persona, self.practiced, now, self.crisis):
            if pressing and promises_first and p.may_postpone:
                continue
            self.practiced[p.id] = urges.practice_key(p, now)
            self.busy = Busy(p.id, now + TAKES)
            self.log.add(
                PlanNote(
                    now,
                    0,
                    self.name,
                    None,
                    "practice",
                    day_of(now),
                    p.action,
                    self.home,
                    f"practice {p.id}",
                )
            )
            out.append(Intent(IntentKind.ACT, self.home, action=p.action))
        return out

    def holds_off(self, now: int) -> bool:
        """Whether a practice is under way that a promise may not interrupt (the reminder
        waits until after it)."""
        busy = self.busy
        return (
            busy.practice is not None
            and now < busy.until
            and busy.practice not in self.persona.may_preempt
        )
