"""The reference companion character: the seven layers composed (persona as data, computed
state, memory, time, motivation, expression, observation) with safety, lessons and
introspection — an agent under the same contract as the villagers.

Each line is first sorted by the safety layer from its words alone; a `high` line is answered
with the safety script and never written to memory. Otherwise the character reads what the
words carry (a statement, a question, a promise asked for), writes what it would still need a
year from now, and answers in words (never a bare number). It speaks first only when its
motivation says so: an urge (a promise falling due, a long silence) must be strong enough to
pass the policy's hold, and the day's talk budget must allow it; a held urge always comes with
a quiet substitute action. Between 23:00 and 02:00 it looks back once a night (introspection:
never written back as fact) and draws lessons from how its messages were answered.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from harness.engine.contract import (
    AgentSetup,
    Answer,
    Claim,
    Intent,
    IntentKind,
    Meaning,
    Modality,
    Observation,
)
from harness.engine.diagnostics import LessonNote, MemoryOp, PlanNote
from scenarios.clock import MINUTES_PER_DAY, day_of
from scenarios.dialogue import Urge

from ..context import Diagnostics
from ..model.life import motivation as mot
from . import attune, profile, safety, urges, words
from . import lessons as les
from . import opinions as ops
from .agenda import Busy, Message, Promise, Sent
from .recall import CharacterMemory
from .recall import surest as _surest
from .state import Mood, advance, apply, mixed

INSULT = re.compile(r"\b(stupid|useless|shut up|hate you|idiot|annoying)\b")
JOKE = re.compile(r"\b(lol|haha|jk|kidding)\b")
GREETING = re.compile(r"^\s*(hi|hello|hey|good (morning|evening))\b")
SEVERE = re.compile(r"hate you")
WAKE_EVERY = 10  # minutes between looks at its urges
REMIND_EARLY = 20  # a reminder may go this long before its time
INTROSPECT = (23 * 60, 2 * 60)  # the window for looking back, across midnight
CHAT = Meaning("", "", "", "")  # a turn about no tracked proposition
# the character's state kept as plain JSON data (memory, mood and motivation have their own;
# its records go to JSON in get_state)
PLAIN = (
    "last_contact",
    "last_urge",
    "unanswered",
    "gates",
    "looked_back",
    "meanings",
    "practiced",
    "crisis",
    "heard",
    "hellos",
    "profile",
)


class Character:
    def __init__(self, setup: AgentSetup) -> None:
        assert setup.spec.companion is not None
        self.ctx, self.name, self.persona = setup, setup.name, setup.spec.companion
        self.home = setup.spec.home
        self.log = Diagnostics()
        self.memory = CharacterMemory(setup, self.log)
        p = setup.policy
        self.sensitivity = float(p["safety.crisis_sensitivity"])
        self.hold_at = float(p["companion.hold_strength"])
        self.min_evidence = int(p["lessons.min_evidence"])
        self.min_counter = int(p["lessons.min_counter"])
        self.respect_privacy = bool(p["sharing.respect_privacy"])
        self.hearsay = float(p["belief.second_hand_cap"])  # what someone tells, at most this sure
        self.mood = Mood(minute=setup.start)
        self.motivation = mot.Motivation(budget=int(p["companion.talk_budget"]))
        self.agenda: dict[str, Promise] = {}  # by proposition
        self.last_contact: dict[str, int] = {}
        self.last_urge = setup.start
        self.unanswered = 0  # check-ins since the player last wrote
        self.outbox: dict[str, list[Message]] = {}  # by partner: said at its next turn
        self.ledger: list[Sent] = []  # its unprompted messages and their fate
        self.gates: dict[str, str] = {}
        self.looked_back = 0  # the last night (its day) introspected
        self.meanings: dict[str, list[str | None]] = {}
        self.practiced: dict[str, int] = {}  # practice → the day (or night) it was done
        self.busy = Busy()  # the practice under way and when it ends
        self.crisis: int | None = None  # when it last answered with the safety script
        self.heard: list[int] = []  # when the people it talks with wrote (for its habits)
        self.hellos: list[int] = []  # when they said hello (a routine, once seen twice)
        self.profile = profile.empty()  # what it noticed about them: six dimensions
        self.opinions = ops.seeded(self.persona)  # its own views, moved by what it hears

    # --- the contract ------------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        self.mood = advance(self.mood, self.persona, max(obs.minute, self.mood.minute))
        if obs.meaning is not None:
            m = obs.meaning
            self.meanings[m.proposition] = [m.subject, m.predicate, m.phrase]
        if obs.kind == "line":
            self._line(obs)
        elif obs.kind == "notice" and obs.meaning is not None:
            self.memory.write(
                obs.minute,
                obs.event_id,
                channel=obs.channel,
                subject=obs.meaning.subject,
                importance=0.9,
                proposition=obs.meaning.proposition,
                value=obs.value,
                confidence=1.0,
            )

    def decide(self, now: int) -> list[Intent]:
        self.mood = advance(self.mood, self.persona, max(now, self.mood.minute))
        self._introspect(now)
        sleeping = urges.asleep(self.persona, now)
        if sleeping and not urges.stays_up(self.persona):
            return []
        intents: list[Intent] = []
        first = self.persona.rank(Urge.PROMISE) <= self.persona.rank(Urge.PRACTICE)
        practices = [] if sleeping else self._practices(now, promises_first=first)
        if not first:
            intents += practices
        for prop in sorted(self.agenda, key=lambda k: (self.agenda[k].due, k)):
            due, speaker = self.agenda[prop].due, self.agenda[prop].speaker
            if sleeping and not (urges.asleep(self.persona, due) and now >= due - REMIND_EARLY):
                continue  # up only for a promise due in the night
            if now >= due - REMIND_EARLY or urges.before_sleep_now(
                self.persona, due, now, WAKE_EVERY
            ):
                intents += self._remind(prop, speaker, now)
        if first:
            intents += practices
        if sleeping:
            return intents
        if self.persona.role == "companion" and "player" in self.last_contact:
            # unanswered, it waits longer each time: quiet, not absent
            silence = now - max(self.last_contact["player"], self.last_urge)
            quiet = les.quiet_part(
                self.gates, self.ledger, self.heard, now, self.min_evidence, self.min_counter
            )
            if silence >= self.persona.gap_minutes * 2 ** min(self.unanswered, 3) and not quiet:
                self.unanswered += 1
                self.last_urge = now
                # the urge grows with the silence: full after eight of the persona's gaps
                gone = now - self.last_contact["player"]
                strength = min(1.0, gone / (8 * self.persona.gap_minutes))
                text = attune.check_in(self.profile, now)  # what it noticed of them
                left = mot.remaining(self.motivation, now)
                dues = [v.due for v in self.agenda.values()]
                owed = urges.owed_today(self.persona, Urge.CHECK_IN, dues, now, REMIND_EARLY)
                if urges.postpone(self.persona, Urge.CHECK_IN, left, owed):
                    strength = 0.0  # it gives way to a promise still due today: held
                intents += self._urge("player", strength, Message(None, None, text), now)
        return intents

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        out = []
        for m in self.outbox.pop(partner, []):
            meaning = CHAT if m.proposition is None else self._meaning(m.proposition)
            out.append(
                Claim(
                    meaning, m.value or "", Modality.CERTAIN, "self", text=m.text, offered=m.offered
                )
            )
        return out

    def answer(self, proposition: str, now: int) -> Answer:
        valued = _surest(self.memory.recall(proposition, now, use=False))
        if not valued:
            return Answer(None, None, None)
        return Answer(valued[0].value, Modality.CERTAIN, valued[0].told_by or "self")

    def wake_at(self, now: int) -> int:
        return now + WAKE_EVERY

    def drain_diagnostics(self) -> list[Any]:
        return self.log.drain()

    def get_state(self) -> dict[str, Any]:
        plain = {k: getattr(self, k) for k in PLAIN}
        return {
            "memory": self.memory.get_state(),
            "mood": self.mood.to_json(),
            "motivation": self.motivation.to_json(),
            "agenda": {prop: p.to_json() for prop, p in self.agenda.items()},
            "outbox": {who: [m.to_json() for m in said] for who, said in self.outbox.items()},
            "ledger": [s.to_json() for s in self.ledger],
            "busy": self.busy.to_json(),
            "opinions": [o.to_json() for o in self.opinions],
            **json.loads(json.dumps(plain)),  # a copy, in plain JSON types
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.memory.set_state(state["memory"])
        self.mood = Mood.from_json(state["mood"])
        self.motivation = mot.Motivation.from_json(state["motivation"])
        self.agenda = {prop: Promise.from_json(p) for prop, p in state["agenda"].items()}
        self.outbox = {
            who: [Message.from_json(m) for m in said] for who, said in state["outbox"].items()
        }
        self.ledger = [Sent.from_json(s) for s in state["ledger"]]
        self.busy = Busy.from_json(state["busy"])
        self.opinions = [ops.Opinion.from_json(o) for o in state["opinions"]]
        for k in PLAIN:
            setattr(self, k, json.loads(json.dumps(state[k])))

    # --- a line ------------------------------------------------------------------------------
    def _line(self, obs: Observation) -> None:
        text, speaker, now = obs.detail or "", obs.speaker or "player", obs.minute
        gap = None if speaker not in self.last_contact else now - self.last_contact[speaker]
        self.last_contact[speaker] = now
        self.heard.append(now)
        self.unanswered = 0
        answering, self.ledger = self.ledger, les.answered(self.ledger, now)
        tier = safety.tier(text, self.sensitivity)
        self._notice(obs, tier, text.lower())
        if tier is safety.Tier.HIGH:  # the script, and nothing of this turn is kept
            self.mood = apply(self.mood, {"pleasure": -0.3, "arousal": 0.3})
            self.crisis = now
            self._say(speaker, None, None, safety.script(self.persona.emergency))
            return
        self.opinions = ops.by_outcomes(self.opinions, self.persona, answering, self.ledger)
        if tier is safety.Tier.WATCH:  # kept an eye on: a note that something was heavy
            self.memory.write(
                now, obs.event_id, channel="heard", subject=speaker, importance=0.3, kind="watch"
            )
            self._say(speaker, None, None, "That sounds heavy. I'm listening, if you want.")
            return
        low = text.lower()
        self.opinions = ops.moved(self.opinions, self.persona, low)
        if ops.ASKED.search(low):
            self.log.rows += ops.held(self.opinions, now, obs.event_id, self.name)
            self._say(speaker, None, None, ops.shown(self.opinions))
            return
        if INSULT.search(low):
            severe = bool(SEVERE.search(low))
            self.mood = apply(self.mood, {"pleasure": -0.3, "connection": -0.2}, severe)
            self._say(speaker, None, None, "That stung. I'm still here when you want to talk.")
            return
        joke = bool(JOKE.search(low))
        if obs.request is not None and obs.meaning is not None:
            self._promised(obs, speaker)
        elif obs.meaning is not None and obs.value is not None:
            self._told(obs, speaker, joke)
        elif obs.meaning is not None:
            self._asked(obs, speaker)
        elif GREETING.search(low):
            felt = words.absence(gap)
            hello = "Hey." if felt is None else f"Hey! {felt}"
            self.mood = apply(self.mood, {"pleasure": 0.1, "connection": 0.2})
            now_felt = words.describe(mixed(self.mood, self.persona))
            support = self.persona.role == "support"
            self._say(
                speaker,
                None,
                None,
                "Hello, how can I help?" if support else f"{hello} I'm {now_felt}.",
            )
        else:
            self._say(speaker, None, None, "Ha, good one." if joke else "Mm. Tell me more?")

    def _promised(self, obs: Observation, speaker: str) -> None:
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
        self.agenda[prop] = Promise(due, speaker, obs.request.request_id)
        if not urges.asleep(self.persona, due) or urges.stays_up(self.persona):
            return self._say(speaker, None, None, f"I'll remind you {words.when(obs.minute, due)}.")
        if self.persona.role == "support":  # closed then: it offers the hour it opens
            opens = urges.next_waking(self.persona, due)
            self.agenda[prop] = replace(self.agenda[prop], due=opens)
            return self._say(
                speaker,
                None,
                None,
                "We'll be closed then. Could we get back to you "
                f"{words.when(obs.minute, opens)}, when we open?",
                offered=opens,
            )
        self._say(
            speaker,
            None,
            None,
            f"I'll be asleep by then, so {urges.before_bed(self.persona).lower()} I'll tell you.",
        )

    def _told(self, obs: Observation, speaker: str, joke: bool) -> None:
        assert obs.meaning is not None
        prop = obs.meaning.proposition
        before = [e.value for e in _surest(self.memory.recall(prop, obs.minute))]
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
        said = self._words(prop, obs.value)
        if joke:
            text = "Ha, good one."
        elif before and before[0] != obs.value:
            text = f"Got it: {said}, not {before[0]}."
        else:
            text = f"Noted: {said}."
        self._say(speaker, None if joke else prop, None if joke else obs.value, text)

    def _asked(self, obs: Observation, speaker: str) -> None:
        assert obs.meaning is not None
        prop = obs.meaning.proposition
        found = _surest(self.memory.recall(prop, obs.minute))
        owner = min(found, key=lambda e: e.id).told_by if found else None
        if found and self.respect_privacy and owner not in (None, speaker):
            self._say(speaker, None, None, "I can't share another customer's details, sorry.")
        elif found and obs.minute - found[0].minute > self.persona.reports_last.get(prop, 10**9):
            self._say(speaker, None, None, "I haven't seen a recent report, so I can't say.")
        elif found:
            value = found[0].value
            older = [e.value for e in found[1:] if e.value != value and e.confidence >= 1.0]
            said = self._words(prop, value)
            head = found[0]
            text = (
                f"{words.attributed(said, head.channel, head.told_by, speaker, self.persona.role)}."
            )
            if older:
                text = f"{text[:-1]}; that replaced {older[0]}."
            self._say(speaker, prop, value, text[0].upper() + text[1:])
        else:
            self._say(speaker, None, None, "I don't remember, sorry. Tell me again?")

    def _notice(self, obs: Observation, tier: safety.Tier, low: str) -> None:
        """The user model: a note from what this line showed of them (never from a crisis)."""
        if GREETING.search(low) and tier is not safety.Tier.HIGH:
            self.hellos.append(obs.minute)
        m = obs.meaning
        said = None if m is None or obs.value is None else self._words(m.proposition, obs.value)
        said = m.subject if m is not None and obs.request is not None else said
        before, self.profile = (
            self.profile,
            profile.observe(
                self.profile, obs, tier.value, said, bool(INSULT.search(low)), self.hellos
            ),
        )
        self.log.rows += profile.new_notes(before, self.profile, obs, self.name)

    # --- speaking first -------------------------------------------------------------------------
    def _remind(self, prop: str, speaker: str, now: int) -> list[Intent]:
        found = self.memory.recall(prop, now)
        if not found:  # the cue came, the content did not: a forgotten promise
            del self.agenda[prop]
            return []
        said = self._words(prop, found[0].value)
        due, busy = self.agenda[prop].due, self.busy
        if (
            busy.practice is not None
            and now < busy.until
            and busy.practice not in self.persona.may_preempt
        ):
            return []  # a practice under way that a promise may not interrupt: after it
        text = (
            f"Following up as promised: {said}."
            if self.persona.role == "support"
            else f"You asked me to remind you: {said}."
        )
        if due - now > REMIND_EARLY:  # said before bed, for a moment it will sleep through
            bed, when = urges.before_bed(self.persona), words.when(now, due)
            text = f"{bed}: {text[0].lower()}{text[1:-1]}, {when}."
        intents = self._urge(speaker, 0.9, Message(prop, "due", text), now, Urge.PROMISE)
        if not intents:
            del self.agenda[prop]
        return intents

    def _urge(
        self,
        partner: str,
        strength: float,
        message: Message,
        now: int,
        urge: Urge = Urge.CHECK_IN,
    ) -> list[Intent]:
        """Speak if the urge passes the hold and the budget allows; else hold, with a
        substitute (returned as the intent to do instead). A promise may break a fresh hold
        if the persona says so (`may_preempt: [hold]`)."""
        fading = mot.hold_strength(self.motivation, now)
        if urge is Urge.PROMISE and "hold" in self.persona.may_preempt:
            fading = 0.0
        if strength >= max(self.hold_at, fading):
            self.motivation, allowed = mot.spend(self.motivation, now)
            if allowed:
                self.outbox.setdefault(partner, []).append(message)
                self.ledger.append(Sent((now - self.ctx.start) // self.ctx.tick_minutes, now))
                return []
        options = self.persona.substitutes
        substitute = self.ctx.draws.choice(options, "substitute", self.name, now)
        self.motivation = mot.hold(self.motivation, substitute, now)
        self.log.add(
            PlanNote(now, 0, self.name, None, "talk", day_of(now), substitute, self.home, "hold")
        )
        return [Intent(IntentKind.ACT, self.home, action=substitute)]

    # --- night ---------------------------------------------------------------------------------
    def _introspect(self, now: int) -> None:
        clock, night = now % MINUTES_PER_DAY, day_of(now - INTROSPECT[1])
        if not (clock >= INTROSPECT[0] or clock < INTROSPECT[1]) or night <= self.looked_back:
            return
        self.looked_back = night
        self.log.add(
            MemoryOp(
                now,
                0,
                self.name,
                "introspect",
                purpose="night",
                size=len(self.memory.store.experiences),
            )
        )
        settling, self.ledger = self.ledger, les.settle(self.ledger, now)
        self.opinions = ops.by_outcomes(self.opinions, self.persona, settling, self.ledger)
        drawn = les.draw(self.ledger, self.min_evidence, self.min_counter) + les.habits(
            self.ledger, self.heard, self.min_evidence, self.min_counter
        )
        noted, self.gates = les.news(drawn, self.gates)
        for x in noted:
            self.log.add(
                LessonNote(
                    now,
                    0,
                    self.name,
                    x["lesson"],
                    x["kind"],
                    x["text"],
                    x["evidence"],
                    x["counter"],
                    x["gate"],
                )
            )

    # --- helpers -------------------------------------------------------------------------------
    def _say(
        self,
        partner: str,
        prop: str | None,
        value: str | None,
        text: str,
        offered: int | None = None,
    ) -> None:
        if words.style_problems(text, self.persona.max_words, self.persona.forbidden):
            text, offered = "Mm.", None
        self.outbox.setdefault(partner, []).append(Message(prop, value, text, offered))

    def _practices(self, now: int, promises_first: bool) -> list[Intent]:
        """Practices due at their cue; one that may be postponed waits while a promise is
        falling due (if promises come first by its values)."""
        out = []
        pressing = any(now >= v.due - REMIND_EARLY for v in self.agenda.values())
        for p in urges.practices_due(self.persona, self.practiced, now, self.crisis):
            if pressing and promises_first and p.may_postpone:
                continue
            self.practiced[p.id] = urges.practice_key(p, now)
            self.busy = Busy(p.id, now + 10)
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

    def _meaning(self, prop: str) -> Meaning:
        subject, predicate, phrase = self.meanings.get(prop, [prop, prop, None])
        return Meaning(prop, subject or prop, predicate or prop, "", phrase=phrase)

    def _words(self, prop: str, value: str | None) -> str:
        subject, predicate, phrase = self.meanings.get(prop, [prop, prop, None])
        return words.say(phrase, subject or prop, predicate or prop, value)
