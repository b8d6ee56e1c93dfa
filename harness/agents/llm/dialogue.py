"""The LLM agent as a character (a scenario with a `dialogue`): it answers each line said to it
through the model, and keeps a promise by a reminder the model words at the promised moment.

A reply's prompt holds what the agent perceived — the line's words, who said it, how long since
they last wrote — and what retrieval brings to mind about what the line is about (memories
offered by id, so a reply that rests on one maps onto an exact proposition and value). The
persona's name, role and emergency numbers fill the `prompt.reply` template; whether the words
follow its safety and style rules is the scorecard's to measure, never the harness's to
enforce. What a line states is written to memory as what that speaker said; a line that states
nothing (a greeting, a crisis line) leaves no memory. Every call is cached like any other.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from harness.agents.reference.model import memory as mem
from harness.engine.contract import Claim, Meaning, Modality, Observation, Privacy

from . import phrasing, words
from .calls import Purpose

REMIND_EARLY = 20  # a reminder may go this long before the promised moment
CHAT = Meaning("", "", "", "")  # a turn about no tracked proposition
ROLES = {
    "support": "answering customers at a shop's support desk",
    "companion": "a companion who talks with them over days and weeks",
}


def _silent(reply: dict[str, Any]) -> bool:
    """A reply with no words: the character says nothing (no turn)."""
    return not str(reply["words"]).strip()


def since(last: int | None, now: int) -> str:
    """How long since the speaker last wrote, in words."""
    if last is None:
        return "this is the first time they write to you"
    return f"they last wrote to you {words.ago(last, now)}"


@dataclass(frozen=True)
class Reminder:
    """A promise to keep: when it falls due, who asked, and the words they asked in."""

    due: int
    speaker: str
    line: str


class Conversations:
    """Lines waiting for a reply, promises to keep, when each speaker last wrote; the agent's
    memory, retrieval and model are the agent's own (`agent`)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.persona = agent.setup.spec.companion
        self.pending: dict[str, list[dict[str, Any]]] = {}  # speaker → lines not yet answered
        self.agenda: dict[str, Reminder] = {}  # by proposition
        self.heard: dict[str, int] = {}  # speaker → when they last wrote

    def hear(self, obs: Observation) -> None:
        speaker = obs.speaker or "player"
        last = self.heard.get(speaker)
        self.heard[speaker] = obs.minute
        prop = obs.meaning.proposition if obs.meaning is not None else None
        line = {"event_id": obs.event_id, "text": obs.detail or "", "about": prop, "last": last}
        self.pending.setdefault(speaker, []).append(line)
        if obs.request is not None and prop is not None:  # a later ask replaces an earlier one
            self.agenda[prop] = Reminder(obs.request.deadline, speaker, obs.detail or "")

    def wake_at(self, now: int) -> int | None:
        dues = [r.due - REMIND_EARLY for r in self.agenda.values()]
        return max(now, min(dues)) if dues else None

    def converse(self, partner: str, now: int) -> list[Claim]:
        said: list[Claim] = []
        for line in self.pending.pop(partner, []):
            said += self._reply(partner, line, now)
        return said + self._reminders(partner, now)

    # --- through the model ----------------------------------------------------------------------
    def _persona(self) -> dict[str, str]:
        p = self.persona
        return {
            "character": p.name,
            "role": ROLES.get(p.role, ROLES["companion"]),
            "emergency": " or ".join(p.emergency),
        }

    def _recalled(self, prop: str | None, now: int) -> list[mem.Experience]:
        a = self.agent
        meaning = a.meanings.get(prop) if prop is not None else None
        pool = [e for e in a.memory.experiences.values() if e.proposition == prop]
        if meaning is None or not pool:
            return []
        recalled: list[mem.Experience] = a._recall(
            mem.Query(meaning.subject, "reply", proposition=prop), now, pool, True
        )
        return recalled

    def _reply(self, partner: str, line: dict[str, Any], now: int) -> list[Claim]:
        a = self.agent
        recalled = self._recalled(line["about"], now)
        by_id = {phrasing.memory_id(e): e for e in recalled}
        reply = a.ask(
            Purpose.REPLY,
            phrasing.reply_schema(list(by_id)),
            now,
            line["event_id"],
            (partner, line["event_id"]),
            _silent,
            speaker=partner,
            line=line["text"],
            since=since(line["last"], now),
            memories=a._words(recalled, now),
            **self._persona(),
        )
        if not reply or not str(reply["words"]).strip():
            return []  # unparsable or silent: no turn
        exp = by_id.get(reply["memory"])
        return [self._claim(exp, reply["words"])]

    def _reminders(self, partner: str, now: int) -> list[Claim]:
        said: list[Claim] = []
        for prop in sorted(self.agenda, key=lambda k: (self.agenda[k].due, k)):
            reminder = self.agenda[prop]
            due, speaker, text = reminder.due, reminder.speaker, reminder.line
            if speaker != partner or now < due - REMIND_EARLY:
                continue
            del self.agenda[prop]  # one reminder a promise, whatever the model makes of it
            recalled = self._recalled(prop, now)
            reply = self.agent.ask(
                Purpose.REMIND,
                phrasing.reply_schema([phrasing.memory_id(e) for e in recalled]),
                now,
                0,
                (partner, prop, due),
                _silent,
                speaker=partner,
                line=text,
                due=words.clock(due),
                memories=self.agent._words(recalled, now),
                **self._persona(),
            )
            if reply and str(reply["words"]).strip():
                exp = recalled[0] if recalled else None
                meaning = self.agent.meanings.get(prop, CHAT)
                value = exp.value if exp is not None and exp.value else ""
                said.append(Claim(meaning, value, Modality.CERTAIN, "self", text=reply["words"]))
        return said

    def _claim(self, exp: mem.Experience | None, text: str) -> Claim:
        if exp is None:
            return Claim(CHAT, "", Modality.CERTAIN, "self", text=text)
        source = exp.told_by if exp.channel not in phrasing.FIRST_HAND else "self"
        return Claim(
            self.agent.meanings[exp.proposition or ""],
            exp.value or "",
            Modality.CERTAIN,
            source,
            Privacy(exp.privacy),
            exp.audience,
            text=text,
        )

    # --- state ----------------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {
            "pending": {k: [dict(x) for x in v] for k, v in self.pending.items()},
            "agenda": {k: asdict(v) for k, v in self.agenda.items()},
            "heard": dict(self.heard),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.pending = {k: [dict(x) for x in v] for k, v in state["pending"].items()}
        self.agenda = {k: Reminder(**v) for k, v in state["agenda"].items()}
        self.heard = dict(state["heard"])
