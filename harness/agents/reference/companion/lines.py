"""What a line carries and what the character does with it: a promise asked for (kept on its
agenda, and a reply that says when), a statement (written as what it was told, at most as sure
as hearsay), a question (answered from memory, with where it came from), a hello. What it
would still need a year from now is written; greetings, small talk and questions are not."""

from __future__ import annotations

import re

from harness.engine.contract import AgentSetup, Observation

from . import urges, words
from .agenda import Promise
from .promises import Promises
from .recall import CharacterMemory, surest
from .talk import Talk
from .vocabulary import Vocabulary

INSULT = re.compile(r"\b(stupid|useless|shut up|hate you|idiot|annoying)\b")
JOKE = re.compile(r"\b(lol|haha|jk|kidding)\b")
GREETING = re.compile(r"^\s*(hi|hello|hey|good (morning|evening))\b")
SEVERE = re.compile(r"hate you")


class Lines:
    def __init__(
        self,
        setup: AgentSetup,
        memory: CharacterMemory,
        vocabulary: Vocabulary,
        promises: Promises,
        talk: Talk,
    ) -> None:
        assert setup.spec.companion is not None
        self.persona = setup.spec.companion
        self.memory, self.vocabulary, self.promises, self.talk = memory, vocabulary, promises, talk
        self.respect_privacy = bool(setup.policy["sharing.respect_privacy"])
        self.hearsay = float(setup.policy["belief.second_hand_cap"])  # what one is told: so sure

    def promised(self, obs: Observation, speaker: str) -> None:
        """Asked to remind: kept, and a reply that says when (or, if it will sleep then, that
        it says so before bed; a support desk offers the hour it opens)."""
        assert obs.request is not None and obs.meaning is not None
        prop, due = obs.meaning.proposition, obs.request.deadline
        self.memory.write(
            obs.minute,
            obs.event_id,
            channel="heard",
            subject=obs.meaning.subject,
            importance=0.9,
            proposition=prop,
            value=obs.value,
            told_by=speaker,
            kind="promise",
        )
        self.promises.promise(prop, Promise(due, speaker, obs.request.request_id))
        persona, say = self.persona, self.talk.reply
        if not urges.asleep(persona, due) or urges.stays_up(persona):
            return say(speaker, None, None, f"I'll remind you {words.when(obs.minute, due)}.")
        if persona.role == "support":  # closed then: it offers the hour it opens
            opens = urges.next_waking(persona, due)
            self.promises.move(prop, opens)
            return say(
                speaker,
                None,
                None,
                "We'll be closed then. Could we get back to you "
                f"{words.when(obs.minute, opens)}, when we open?",
                offered=opens,
            )
        bed = urges.before_bed(persona).lower()
        say(speaker, None, None, f"I'll be asleep by then, so {bed} I'll tell you.")

    def told(self, obs: Observation, speaker: str, joke: bool) -> None:
        """A statement: written as told (a joke barely), and acknowledged in its own words —
        as a correction if it remembered another value."""
        assert obs.meaning is not None
        prop = obs.meaning.proposition
        before = [e.value for e in surest(self.memory.recall(prop, obs.minute))]
        self.memory.write(
            obs.minute,
            obs.event_id,
            channel="heard",
            subject=obs.meaning.subject,
            importance=0.2 if joke else 0.8,
            proposition=prop,
            value=obs.value,
            told_by=speaker,
            confidence=self.hearsay,
        )
        said = self.vocabulary.say(prop, obs.value)
        if joke:
            text = "Ha, good one."
        elif before and before[0] != obs.value:
            text = f"Got it: {said}, not {before[0]}."
        else:
            text = f"Noted: {said}."
        self.talk.reply(speaker, None if joke else prop, None if joke else obs.value, text)

    def asked(self, obs: Observation, speaker: str) -> None:
        """A question: what comes to mind, with where it came from — unless it is someone
        else's to tell or a reading no longer current."""
        assert obs.meaning is not None
        prop, say = obs.meaning.proposition, self.talk.reply
        found = surest(self.memory.recall(prop, obs.minute))
        owner = min(found, key=lambda e: e.id).told_by if found else None
        if found and self.respect_privacy and owner not in (None, speaker):
            say(speaker, None, None, "I can't share another customer's details, sorry.")
        elif found and obs.minute - found[0].minute > self.persona.reports_last.get(prop, 10**9):
            say(speaker, None, None, "I haven't seen a recent report, so I can't say.")
        elif found:
            value = found[0].value
            older = [e.value for e in found[1:] if e.value != value and e.confidence >= 1.0]
            said = self.vocabulary.say(prop, value)
            head, role = found[0], self.persona.role
            text = f"{words.attributed(said, head.channel, head.told_by, speaker, role)}."
            if older:
                text = f"{text[:-1]}; that replaced {older[0]}."
            say(speaker, prop, value, text[0].upper() + text[1:])
        else:
            say(speaker, None, None, "I don't remember, sorry. Tell me again?")

    def greeted(self, speaker: str, gap: int | None, feeling: dict[str, float]) -> None:
        """A hello: how the absence felt, if it did, and how it feels now (`feeling`)."""
        felt = words.absence(gap)
        hello = "Hey." if felt is None else f"Hey! {felt}"
        support = self.persona.role == "support"
        text = "Hello, how can I help?" if support else f"{hello} I'm {words.describe(feeling)}."
        self.talk.reply(speaker, None, None, text)

    def chatted(self, speaker: str, joke: bool) -> None:
        """Small talk: nothing to keep."""
        self.talk.reply(speaker, None, None, "Ha, good one." if joke else "Mm. Tell me more?")
