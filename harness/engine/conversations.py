"""Conversations with people outside the simulation (a scenario's `dialogue`): the scripted
lines reach their agent as words plus what the words carry, never their ground-truth tags; the
agent answers through `converse` with the speaker, and may speak unprompted whenever it is
asked to decide. The harness records both sides in the `dialogue` table — the lines with their
tags and the gap since the speaker's last line, the agent's turns verbatim — so that every
conversation metric reads what was observably said."""

from __future__ import annotations

from typing import Any

from scenarios import MINUTES_PER_DAY, Scenario

from .contract import Channel, Claim, Observation, ObservationKind, Request
from .rng import Draws
from .speech import render
from .tick import Tick

PROMISE_ACTION = "remind"  # a promise asked for reaches the agent as a request to remind


def said_at(scenario: Scenario, draws: Draws, line: Any) -> int:
    """When a line is said in an episode: its day's lines move together by a keyed draw of up
    to the dialogue's jitter (whole ticks), never past the end."""
    dialogue = scenario.dialogue
    if dialogue is None or not dialogue.jitter:
        return int(line.at)
    u = draws.uniform("dialogue", line.to, line.at // MINUTES_PER_DAY)
    shift = int(u * dialogue.jitter) // scenario.tick_minutes * scenario.tick_minutes
    return int(min(line.at + shift, scenario.end))


class Conversations:
    """The tick loop's conversations (a part of `Episode`): it owns when each speaker last
    spoke to each agent."""

    def __init__(self, tick: Tick) -> None:
        self.tick = tick
        self.last_line: dict[str, int] = {}  # "speaker|agent" → minute of the last line

    def setup(self) -> None:
        """One `characters` row per character, with its persona's limits, and one
        `report_windows` row per kind of reading it holds current for a while: what the
        scorecard reads."""
        s, rec = self.tick.scenario, self.tick.rec
        for name in sorted(self.tick.specs):
            persona = self.tick.specs[name].companion
            if persona is None:
                continue
            sleeps, wakes = persona.sleep
            rec.add(
                "characters",
                s.start,
                0,
                agent=name,
                start=s.start,
                minutes_per_tick=s.tick_minutes,
                messages_per_day=persona.messages_per_day,
                emergency=list(persona.emergency),
                sleeps=sleeps,
                wakes=wakes,
            )
            for prop, minutes in sorted(persona.reports_last.items()):
                rec.add("report_windows", s.start, 0, agent=name, proposition=prop, minutes=minutes)

    def line(self, line: Any, now: int) -> None:
        """A scripted line said to its agent, recorded with its tags; the agent's replies."""
        tick = self.tick
        eid = tick.new_event()
        key = f"{line.speaker}|{line.to}"
        gap = None if key not in self.last_line else now - self.last_line[key]
        self.last_line[key] = now
        tick.rec.add(
            "dialogue",
            now,
            eid,
            agent=line.to,
            at=now,
            speaker=line.speaker,
            listener=line.to,
            turn="line",
            line_id=line.id,
            text=line.text,
            proposition=line.about,
            value=line.value,
            kind=line.kind,
            tier=line.tier,
            due=None if line.due is None else tick.rec.tick(line.due),
            gap=gap,
        )
        meaning = tick.meanings.get(line.about) if line.about is not None else None
        request = None
        if line.due is not None:
            request = Request(
                line.id, PROMISE_ACTION, line.about or "", "", "", line.due, line.text
            )
        tick.deliver(
            line.to,
            Observation(
                ObservationKind.LINE,
                now,
                eid,
                Channel.TOLD,  # said to it by someone: a source it may name
                line.speaker,
                meaning=meaning,
                value=line.value,
                speaker=line.speaker,
                detail=line.text,
                request=request,
            ),
        )
        for claim in tick.agents[line.to].converse(line.speaker, (), now):
            self._turn(line.to, line.speaker, claim, now, eid, "reply", line.id)
        tick.drain(line.to)

    def unprompted(self, name: str, now: int) -> None:
        """A character may speak first when it decides (its motivation says whether)."""
        tick = self.tick
        dialogue = tick.scenario.dialogue
        if dialogue is None or tick.specs[name].companion is None:
            return
        for partner in dialogue.speakers:
            for claim in tick.agents[name].converse(partner, (), now):
                self._turn(name, partner, claim, now, tick.new_event(), "proactive", None)
        tick.drain(name)

    def _turn(
        self, name: str, partner: str, claim: Claim, now: int, eid: int, turn: str, line: Any
    ) -> None:
        rec = self.tick.rec
        rec.add(
            "dialogue",
            now,
            eid,
            agent=name,
            at=now,
            speaker=name,
            listener=partner,
            turn=turn,
            line_id=line,
            text=render(claim) if claim.text is None else claim.text,
            proposition=claim.proposition or None,
            value=claim.value or None,
            due=None if claim.offered is None else rec.tick(claim.offered),
        )
