"""Encounters and the talk they lead to: at each place with company, agents start chats by
keyed draws, and each says what it chooses to the other; a claim reaches its listener only
when the speaker could know it (see `Encounters.say`)."""

from __future__ import annotations

from typing import Any

from .contract import Channel, Claim, Observation, ObservationKind
from .positions import Whereabouts
from .speech import render
from .tick import Tick

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


class Encounters:
    """The tick loop's encounters and talk (a part of `Episode`): it owns each pair's last
    chat, and the chances and crowds it keeps until someone moves."""

    def __init__(
        self,
        tick: Tick,
        number: dict[str, int],
        exposed: set[tuple[str, str]],
        origins: dict[str, tuple[str, ...]],
    ) -> None:
        self.tick = tick
        self.number = number  # agent → its place in name order
        self.names = list(number)  # a number's agent
        self.exposed = exposed  # (agent, proposition) pairs exposed so far (the episode's)
        self.origins = origins  # the agents a tracked proposition starts with
        self.last_chat: dict[int, int] = {}  # pair → minute of its last chat
        self._starts: dict[int, float] = {}  # others noticed → chance to start a chat
        self._crowds: tuple[Any, Any] = (None, [])  # crowded places and their groups, kept

    # --- pairs: one int, a × n + b (agents by number) ---------------------------------------
    def pair(self, a: str, b: str) -> int:
        return self.number[a] * len(self.number) + self.number[b]

    def pair_name(self, pair: int) -> str:
        names = self.names
        return f"{names[pair // len(names)]}|{names[pair % len(names)]}"

    def pair_of(self, a: str, b: str) -> int:
        """The two's pair, `pair` of them in name order (numbers follow names): no sort."""
        i, j, n = self.number[a], self.number[b], len(self.number)
        return i * n + j if i < j else j * n + i

    def met(self, a: str, b: str, now: int) -> None:
        """The two talked (a chat, or a scripted line): the pair's cooldown starts now."""
        self.last_chat[self.pair_of(a, b)] = now

    # --- the tick's encounters ----------------------------------------------------------------
    def meet(self, now: int, positions: Whereabouts) -> None:
        """Per-agent encounters: at each place with company, each agent there starts a chat
        this tick with the chance that one of the others it notices (at most the scenario's
        `crowd_limit`) would start one with it — `(1 - (1 - c)^noticed) / 2`, halved because
        it may also be the one approached — and draws its partner uniformly among those
        present and out of their cooldown. Draws are keyed by (agent, minute), purposes
        `encounter` and `partner`: an agent's chats grow with its company up to the limit,
        never with the crowd, and an agent alone (asleep at home) costs nothing."""
        scenario, draws = self.tick.scenario, self.tick.draws
        chance = scenario.encounter_chance
        if chance <= 0:
            return  # nobody ever meets (a draw is never below 0)
        places = positions.crowded_places()  # the same list until someone moves
        if places is not self._crowds[0]:
            at, limit, starts = positions.at, scenario.crowd_limit, self._starts
            groups = []  # who is there, with the chance that each starts a chat, by place
            for place in places:
                here = at[place]  # as it stays until someone moves: talk moves nobody
                noticed = min(len(here) - 1, limit)
                start = starts.get(noticed)
                if start is None:  # the same number for the same company: worked out once
                    start = starts[noticed] = (1.0 - (1.0 - chance) ** noticed) / 2
                groups.append(draws.crowd("encounter", here, start))
            self._crowds = (places, groups)
        groups = self._crowds[1]
        # each agent's draw is keyed, whoever talked before: all the tick's drawn at once,
        # and only the crowds where someone starts a chat come back (most ticks, none)
        for i, starters in draws.below_each(now, groups):
            place, here = places[i], groups[i][0]
            for a in starters:
                partner = self._partner(a, here, now)
                if partner is not None:
                    self._chat(a, partner, place, now)

    def _partner(self, a: str, here: list[str], now: int) -> str | None:
        """Whom `a` talks to: drawn uniformly among those `here` out of their cooldown with
        it (by rejection, so a crowd is not scanned; among the free ones if that fails)."""
        draws = self.tick.draws
        for attempt in range(PARTNER_TRIES):
            b = here[int(draws.uniform("partner", a, now, attempt) * len(here))]
            if self._free(a, b, now):
                return b
        others = [b for b in here if self._free(a, b, now)]
        if not others:
            return None
        return others[int(draws.uniform("partner", a, now) * len(others))]

    def _free(self, a: str, b: str, now: int) -> bool:
        """Whether `a` may chat with `b` now: another agent, out of their cooldown."""
        if a == b:
            return False
        last = self.last_chat.get(self.pair_of(a, b))
        return last is None or now - last >= self.tick.scenario.chat_cooldown

    def _chat(self, a: str, b: str, place: str, now: int) -> None:
        tick = self.tick
        eid = tick.new_event()
        # the row's values in the events table's column order (CHATTED): no keywords
        tick.rec.add_row("events", (now, eid, "chat", place, a, b, None, None, None))
        self.last_chat[self.pair_of(a, b)] = now  # one cooldown per pair
        deliver, agents, specs = tick.deliver, tick.agents, tick.specs
        deliver(a, Observation(ObservationKind.CHAT, now, eid, Channel.HEARD, b))
        deliver(b, Observation(ObservationKind.CHAT, now, eid, Channel.HEARD, a))
        for speaker, listener in ((a, b), (b, a)):
            claims = agents[speaker].converse(listener, specs[listener].groups, now)
            for claim in claims:
                self.say(speaker, listener, claim, now, tick.new_event())  # each its own event
            tick.drain(speaker)

    def say(
        self, speaker: str, listener: str, claim: Claim, now: int, eid: int, scripted: bool = False
    ) -> None:
        """One claim said to one listener: recorded (a scripted line as scripted, with
        text_by 'scenario') and, when the speaker could know it, delivered as a claim the
        listener hears. A claim about a tracked proposition is grounded when the speaker was
        exposed to it before or is an origin of it (a scripted line always is): a claim from
        nowhere is recorded as said, and nobody hears it, so it exposes no one."""
        tick = self.tick
        own = claim.text is not None and not scripted
        prop, value, modality = claim.proposition, claim.value, claim.modality
        source, privacy = claim.stated_source, claim.privacy
        meaning = tick.meanings.get(prop)  # the scenario's own: never the speaker's copy
        grounded = (
            scripted
            or meaning is None
            or (speaker, prop) in self.exposed
            or speaker in self.origins.get(prop, ())
        )
        # the row's values in the utterances table's column order (UTTERED)
        tick.rec.add_row(
            "utterances",
            (
                now,
                eid,
                speaker,
                listener,
                tick.new_event(),  # the claim's id
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
        tick.deliver(
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
