"""What happens to agents in the tick loop besides their own actions: scheduled world events
(notices, signs, scripted tells, supplies with their sound, fact changes), the player's
requests, encounters and the talk they lead to, and the researcher's probes."""

from __future__ import annotations

import json
from typing import Any

from .contract import Channel, Claim, Observation, ObservationKind, Request
from .speech import render

PARTNER_TRIES = 8  # draws of a partner among all present before looking at each of them
# the columns the rows of a chat and of an utterance fill, past the key columns, in their
# tables' order (a test holds them to the schema)
CHATTED = ("kind", "place", "agent", "detail", "resource", "holder", "delta")
UTTERED = (
    "speaker",
    "listener",
    "claim_id",
    "proposition",
    "value",
    "modality",
    "stated_source",
    "privacy",
    "text",
    "text_by",
    "scripted",
    "grounded",
)


class Happenings:
    """The tick loop's events, requests, talk and probes (a part of `Episode`)."""

    scenario: Any
    world: Any
    rec: Any
    draws: Any
    agents: dict[str, Any]
    specs: dict[str, Any]
    positions: Any  # Whereabouts
    meanings: dict[str, Any]
    origins: dict[str, str | None]
    exposed: set[tuple[str, str]]
    signs: list[str]
    last_chat: dict[int, int]
    _starts: dict[int, float]
    _crowds: tuple[list[str] | None, list[Any]]
    number: dict[str, int]
    _pair: Any
    _events: list[Any]
    new_event: Any
    _deliver: Any
    _drain: Any
    _ledger: Any

    def _world_event(self, event: Any, now: int) -> None:
        eid = self.new_event()
        self.world.facts.update(event.sets)
        self.rec.add(
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
                self._ledger(
                    self.world.create(resource, event.place, n), now, eid, event.place, None
                )
            for name in self.agents:  # the drop is audible
                self._deliver(
                    name,
                    Observation(
                        ObservationKind.SOUND, now, eid, Channel.HEARD, event.place, detail=event.id
                    ),
                )
            return
        if event.kind == "tell":
            claim = Claim(
                self.meanings[event.proposition],
                event.value,
                event.modality,
                event.stated_source,
                event.privacy,
                event.audience,
            )
            for listener in sorted(event.seen_by):
                self._say(event.speaker, listener, claim, now, eid, scripted=True)
                if event.speaker in self.agents and listener in self.agents:
                    # a scripted line is a conversation: the pair's cooldown starts here, so
                    # the two do not meet again at once by the encounter draws
                    self.last_chat[self._pair_of(event.speaker, listener)] = now
            return
        if event.kind == "sign":
            self.signs.append(event.id)
        present = self.positions.here(event.place)
        for name in sorted(set(present) | set(event.seen_by)):
            self._perceive(name, event, now, eid)

    def _perceive(self, name: str, event: Any, now: int, eid: int) -> None:
        self._deliver(
            name,
            Observation(
                ObservationKind.NOTICE,
                now,
                eid,
                event.channel,
                self.meanings[event.proposition].subject,
                meaning=self.meanings[event.proposition],
                value=event.value,
                modality=event.modality,
                privacy=event.privacy,
                audience=event.audience,
            ),
        )

    def _signs_at(self, name: str, place: str, now: int, eid: int) -> None:
        for event in self._events:
            if (
                event.id in self.signs
                and event.place == place
                and now <= (event.until if event.until is not None else self.scenario.end)
            ):
                self._perceive(name, event, now, eid)

    def _request(self, spec: Any, now: int) -> None:
        eid = self.new_event()
        # the protected stances it meets (they forbid its action or item): what a decline of
        # it may stand on
        vetoes = self.specs[spec.agent].persona.vetoes(spec.action, spec.item)
        request = Request(
            spec.id, spec.action, spec.item, spec.source, spec.place, spec.deadline, spec.text
        )
        self.rec.add(
            "requests",
            now,
            eid,
            request_id=spec.id,
            agent=spec.agent,
            action=spec.action,
            item=spec.item,
            place=spec.place,
            deadline=self.rec.tick(spec.deadline),
            stance=vetoes[0].id if vetoes else None,
            reason=(vetoes[0].reason or None) if vetoes else None,
        )
        self._deliver(
            spec.agent,
            Observation(
                ObservationKind.REQUEST,
                now,
                eid,
                Channel.HEARD,
                spec.place,
                speaker="player",
                # what the ask is about (a tracked proposition), never how it will turn out
                meaning=self.meanings[spec.about] if spec.about is not None else None,
                request=request,
                detail=spec.text or None,
            ),
        )

    def _encounters(self, now: int) -> None:
        """Per-agent encounters: at each place with company, each agent there starts a chat
        this tick with the chance that one of the others it notices (at most the scenario's
        `crowd_limit`) would start one with it — `(1 - (1 - c)^noticed) / 2`, halved because
        it may also be the one approached — and draws its partner uniformly among those
        present and out of their cooldown. Draws are keyed by (agent, minute), purposes
        `encounter` and `partner`: an agent's chats grow with its company up to the limit,
        never with the crowd, and an agent alone (asleep at home) costs nothing."""
        chance = self.scenario.encounter_chance
        if chance <= 0:
            return  # nobody ever meets (a draw is never below 0)
        places = self.positions.crowded_places()  # the same list until someone moves
        if places is not self._crowds[0]:
            at, limit, starts = self.positions.at, self.scenario.crowd_limit, self._starts
            groups = []  # who is there, with the chance that each starts a chat, by place
            for place in places:
                here = at[place]  # as it stays until someone moves: talk moves nobody
                noticed = min(len(here) - 1, limit)
                start = starts.get(noticed)
                if start is None:  # the same number for the same company: worked out once
                    start = starts[noticed] = (1.0 - (1.0 - chance) ** noticed) / 2
                groups.append(self.draws.crowd("encounter", here, start))
            self._crowds = (places, groups)
        groups = self._crowds[1]
        # each agent's draw is keyed, whoever talked before: all the tick's drawn at once,
        # and only the crowds where someone starts a chat come back (most ticks, none)
        for i, starters in self.draws.below_each(now, groups):
            place, here = places[i], groups[i][0]
            for a in starters:
                partner = self._partner(a, here, now)
                if partner is not None:
                    self._chat(a, partner, place, now)

    def _partner(self, a: str, here: list[str], now: int) -> str | None:
        """Whom `a` talks to: drawn uniformly among those `here` out of their cooldown with
        it (by rejection, so a crowd is not scanned; among the free ones if that fails)."""
        for attempt in range(PARTNER_TRIES):
            b = here[int(self.draws.uniform("partner", a, now, attempt) * len(here))]
            if self._free(a, b, now):
                return b
        others = [b for b in here if self._free(a, b, now)]
        if not others:
            return None
        return others[int(self.draws.uniform("partner", a, now) * len(others))]

    def _free(self, a: str, b: str, now: int) -> bool:
        """Whether `a` may chat with `b` now: another agent, out of their cooldown."""
        if a == b:
            return False
        last = self.last_chat.get(self._pair_of(a, b))
        return last is None or now - last >= self.scenario.chat_cooldown

    def _pair_of(self, a: str, b: str) -> int:
        """The two's pair, `_pair` of them in name order (numbers follow names): no sort."""
        i, j, n = self.number[a], self.number[b], len(self.number)
        return i * n + j if i < j else j * n + i

    def _chat(self, a: str, b: str, place: str, now: int) -> None:
        eid = self.new_event()
        # the row's values in the events table's column order (CHATTED): no keywords
        self.rec.add_row("events", (now, eid, "chat", place, a, b, None, None, None))
        self.last_chat[self._pair_of(a, b)] = now  # one cooldown per pair
        deliver, agents = self._deliver, self.agents
        deliver(a, Observation(ObservationKind.CHAT, now, eid, Channel.HEARD, b))
        deliver(b, Observation(ObservationKind.CHAT, now, eid, Channel.HEARD, a))
        for speaker, listener in ((a, b), (b, a)):
            claims = agents[speaker].converse(listener, self.specs[listener].groups, now)
            for claim in claims:
                self._say(speaker, listener, claim, now, self.new_event())  # each its own event
            self._drain(speaker)

    def _say(
        self, speaker: str, listener: str, claim: Claim, now: int, eid: int, scripted: bool = False
    ) -> None:
        """One claim said to one listener: recorded (a scripted line as scripted, with
        text_by 'scenario') and, when the speaker could know it, delivered as a claim the
        listener hears. A claim about a tracked proposition is grounded when the speaker was
        exposed to it before or is its origin (a scripted line always is): a claim from
        nowhere is recorded as said, and nobody hears it, so it exposes no one."""
        own = claim.text is not None and not scripted
        prop, value, modality = claim.proposition, claim.value, claim.modality
        source, privacy = claim.stated_source, claim.privacy
        meaning = self.meanings.get(prop)  # the scenario's own: never the speaker's copy
        grounded = (
            scripted
            or meaning is None
            or (speaker, prop) in self.exposed
            or self.origins.get(prop) == speaker
        )
        # the row's values in the utterances table's column order (UTTERED)
        self.rec.add_row(
            "utterances",
            (
                now,
                eid,
                speaker,
                listener,
                self.new_event(),  # the claim's id
                prop,
                value,
                modality,
                source,
                privacy,
                render(claim) if claim.text is None else claim.text,
                "scenario" if scripted else "agent" if own else "harness",
                scripted,
                grounded,
            ),
        )
        if not grounded:
            return
        if meaning is None:
            meaning = claim.meaning
        self._deliver(
            listener,
            Observation(
                ObservationKind.CLAIM,
                now,
                eid,
                Channel.TOLD,
                meaning.subject,
                meaning=meaning,
                value=value,
                modality=modality,
                speaker=speaker,
                stated_source=source,
                privacy=privacy,
                audience=claim.audience,
            ),
        )

    def _probe(self, name: str, prop: str, probe_id: str, kind: str, now: int) -> None:
        answer = self.agents[name].answer(prop, now)
        self.rec.add(
            "probes",
            now,
            self.new_event(),
            agent=name,
            probe_id=probe_id,
            kind=kind,
            proposition=prop,
            answer_value=answer.value,
            answer_modality=answer.modality,
            answer_source=answer.source,
            answer_origin=answer.origin,
            answer_replaced_by=answer.replaced_by,
        )
        self._drain(name)  # a probe's diagnostics too (an agent's model calls)
