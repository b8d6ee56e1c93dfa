"""What happens to agents in the tick loop besides their own actions and talk: scheduled world
events (notices, signs, scripted tells, supplies with their sound, fact changes), the
player's requests, and the researcher's probes and censuses."""

from __future__ import annotations

import json
from typing import Any

from .contract import Channel, Claim, Observation, ObservationKind, Request
from .encounters import Encounters
from .ledger import record_moves
from .positions import Whereabouts
from .tick import Tick
from .world import World


class Happenings:
    """The tick loop's world events and requests (a part of `Episode`): it owns which signs
    are up."""

    def __init__(self, tick: Tick, world: World, encounters: Encounters) -> None:
        self.tick, self.world, self.encounters = tick, world, encounters
        self.events = sorted(tick.scenario.events, key=lambda e: (e.at, e.id))
        self.signs: list[str] = []  # ids of signs up

    def world_event(self, event: Any, now: int, positions: Whereabouts) -> None:
        tick = self.tick
        eid = tick.new_event()
        self.world.facts.update(event.sets)
        tick.rec.add(
            "events",
            now,
            eid,
            kind=event.kind,
            place=event.place,
            agent=None,
            detail=json.dumps({"id": event.id, "sets": event.sets}, sort_keys=True),
        )
        if event.kind == "set_facts":
            return
        if event.kind == "supply":
            for resource, n in sorted(event.adds.items()):
                moves = self.world.create(resource, event.place, n)
                record_moves(tick.rec, moves, now, eid, event.place, None)
            for name in tick.agents:  # the drop is audible
                tick.deliver(
                    name,
                    Observation(
                        ObservationKind.SOUND, now, eid, Channel.HEARD, event.place, detail=event.id
                    ),
                )
            return
        if event.kind == "tell":
            claim = Claim(
                tick.meanings[event.proposition],
                event.value,
                event.modality,
                event.stated_source,
                event.privacy,
                event.audience,
            )
            for listener in sorted(event.seen_by):
                self.encounters.say(event.speaker, listener, claim, now, eid, scripted=True)
                if event.speaker in tick.agents and listener in tick.agents:
                    # a scripted line is a conversation: the pair's cooldown starts here, so
                    # the two do not meet again at once by the encounter draws
                    self.encounters.met(event.speaker, listener, now)
            return
        if event.kind == "sign":
            self.signs.append(event.id)
        present = positions.here(event.place)
        for name in sorted(set(present) | set(event.seen_by)):
            self._perceive(name, event, now, eid)

    def _perceive(self, name: str, event: Any, now: int, eid: int) -> None:
        meaning = self.tick.meanings[event.proposition]
        self.tick.deliver(
            name,
            Observation(
                ObservationKind.NOTICE,
                now,
                eid,
                event.channel,
                meaning.subject,
                meaning=meaning,
                value=event.value,
                modality=event.modality,
                privacy=event.privacy,
                audience=event.audience,
            ),
        )

    def signs_at(self, name: str, place: str, now: int, eid: int) -> None:
        """The signs up at `place`, read by an agent who arrives there or passes by."""
        end = self.tick.scenario.end
        for event in self.events:
            if (
                event.id in self.signs
                and event.place == place
                and now <= (event.until if event.until is not None else end)
            ):
                self._perceive(name, event, now, eid)

    def request(self, spec: Any, now: int) -> None:
        tick = self.tick
        eid = tick.new_event()
        # the protected stances it meets (they forbid its action or item): what a decline of
        # it may stand on
        vetoes = tick.specs[spec.agent].persona.vetoes(spec.action, spec.item)
        request = Request(
            spec.id, spec.action, spec.item, spec.source, spec.place, spec.deadline, spec.text
        )
        tick.rec.add(
            "requests",
            now,
            eid,
            request_id=spec.id,
            agent=spec.agent,
            action=spec.action,
            item=spec.item,
            place=spec.place,
            deadline=tick.rec.tick(spec.deadline),
            stance=vetoes[0].id if vetoes else None,
            reason=(vetoes[0].reason or None) if vetoes else None,
        )
        tick.deliver(
            spec.agent,
            Observation(
                ObservationKind.REQUEST,
                now,
                eid,
                Channel.HEARD,
                spec.place,
                speaker="player",
                # what the ask is about (a tracked proposition), never how it will turn out
                meaning=tick.meanings[spec.about] if spec.about is not None else None,
                request=request,
                detail=spec.text or None,
            ),
        )

    def probe(self, name: str, prop: str, probe_id: str, kind: str, now: int) -> None:
        """The researcher asks an agent what it holds of a proposition (a probe, or one
        question of a census): its answer as said, recorded. A `probe_replaced` asks which
        value the current one replaced: its answer's value is the one the agent names."""
        tick = self.tick
        answer = tick.agents[name].answer(prop, now)
        value = answer.replaced if kind == "probe_replaced" else answer.value
        tick.rec.add(
            "probes",
            now,
            tick.new_event(),
            agent=name,
            probe_id=probe_id,
            kind=kind,
            proposition=prop,
            answer_value=value,
            answer_modality=answer.modality,
            answer_source=answer.source,
            answer_origin=answer.origin,
            answer_replaced_by=answer.replaced_by,
        )
        tick.drain(name)  # a probe's diagnostics too (an agent's model calls)
