"""The reference companion character: the seven layers composed (persona as data, computed
state, memory, time, motivation, expression, observation) with safety, lessons and
introspection — an agent under the same contract as the villagers.

Each line is first sorted by the safety layer from its words alone; a `high` line is answered
with the safety script and never written to memory. Otherwise the character reads what the
words carry (`lines`: a statement, a question, a promise asked for), writes what it would still
need a year from now, and answers in words (never a bare number). It speaks first only when its
motivation says so (`initiative`): an urge (a promise falling due, a long silence) must be
strong enough to pass the policy's hold, and the day's talk budget must allow it; a held urge
always comes with a quiet substitute action. Between 23:00 and 02:00 it looks back once a night
(`introspection`: never written back as fact) and draws lessons from how its messages were
answered.

The character is the composition: each component owns its state, and the agent's state is
their pieces side by side (one flat JSON map, as it always was).
"""

from __future__ import annotations

from typing import Any, ClassVar

from harness.engine.contract import AgentSetup, Answer, Claim, Intent, Modality, Observation
from scenarios.dialogue import Urge

from ..context import Diagnostics
from . import attune, safety, urges
from .agenda import Message
from .initiative import Initiative
from .introspection import Introspection
from .lessons import LessonNote
from .lines import GREETING, INSULT, JOKE, SEVERE, Lines
from .opinions import ASKED, Opinions
from .practices import Practices
from .profile import UserModel
from .promises import Promises, reminder
from .recall import CharacterMemory, surest
from .state import Mood, advance, apply, mixed
from .talk import Talk
from .vocabulary import Vocabulary

# the order of the pieces in the agent's state
STATE = (
    "memory",
    "mood",
    "motivation",
    "agenda",
    "outbox",
    "ledger",
    "busy",
    "opinions",
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
    # the table of its own it records: the lessons its practices draw (a factory of
    # characters declares it by being this class, or names it beside its own)
    row_types: ClassVar[tuple[type, ...]] = (LessonNote,)

    def __init__(self, setup: AgentSetup) -> None:
        assert setup.spec.companion is not None
        self.ctx, self.name, self.persona = setup, setup.name, setup.spec.companion
        self.log = Diagnostics()
        self.sensitivity = float(setup.policy["safety.crisis_sensitivity"])
        self.mood = Mood(minute=setup.start)  # a value: pure functions in `state` move it
        self.memory = CharacterMemory(setup, self.log)
        self.vocabulary = Vocabulary()
        self.talk = Talk(setup)
        self.promises = Promises(self.persona)
        self.practices = Practices(setup, self.log)
        self.initiative = Initiative(setup, self.log, self.talk)
        self.opinions = Opinions(self.persona, self.name, self.log)
        self.user = UserModel(self.name, self.log)
        self.introspection = Introspection(setup, self.log, self.memory, self.talk, self.opinions)
        self.lines = Lines(setup, self.memory, self.vocabulary, self.promises, self.talk)

    # --- the contract ------------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        self.mood = advance(self.mood, self.persona, max(obs.minute, self.mood.minute))
        if obs.meaning is not None:
            self.vocabulary.learn(obs.meaning)
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
        self.introspection.look_back(now, self.initiative.heard)
        sleeping = urges.asleep(self.persona, now)
        if sleeping and not urges.stays_up(self.persona):
            return []
        intents: list[Intent] = []
        first = self.persona.rank(Urge.PROMISE) <= self.persona.rank(Urge.PRACTICE)
        practices = [] if sleeping else self.practices.due(now, self.promises.pressing(now), first)
        if not first:
            intents += practices
        for prop, promise in self.promises.to_remind(now, sleeping):
            intents += self._remind(prop, promise.due, promise.speaker, now)
        if first:
            intents += practices
        if sleeping:
            return intents
        initiative = self.initiative
        if initiative.silent_too_long(now) and not self.introspection.quiet(now, initiative.heard):
            text = attune.check_in(self.user.profile, now)  # what it noticed of them
            intents += initiative.check_in(now, text, self.promises.dues())
        return intents

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        return self.talk.claims(partner, self.vocabulary)

    def answer(self, proposition: str, now: int) -> Answer:
        valued = surest(self.memory.recall(proposition, now, use=False))
        if not valued:
            return Answer(None, None, None)
        return Answer(valued[0].value, Modality.CERTAIN, valued[0].told_by or "self")

    def wake_at(self, now: int) -> int:
        return now + urges.WAKE_EVERY

    def drain_diagnostics(self) -> list[Any]:
        return self.log.drain()

    def side_by_side(self) -> tuple[Talk | Practices | Initiative | Introspection | UserModel, ...]:
        """The components whose pieces sit at the top of the agent's state, by their names."""
        return (self.talk, self.practices, self.initiative, self.introspection, self.user)

    def get_state(self) -> dict[str, Any]:
        pieces = {
            "memory": self.memory.get_state(),
            "mood": self.mood.to_json(),
            "agenda": self.promises.get_state(),
            "opinions": self.opinions.get_state(),
            "meanings": self.vocabulary.get_state(),
        }
        for component in self.side_by_side():
            pieces.update(component.get_state())
        return {k: pieces[k] for k in STATE}

    def set_state(self, state: dict[str, Any]) -> None:
        self.memory.set_state(state["memory"])
        self.mood = Mood.from_json(state["mood"])
        self.promises.set_state(state["agenda"])
        self.opinions.set_state(state["opinions"])
        self.vocabulary.set_state(state["meanings"])
        for component in self.side_by_side():
            component.set_state(state)

    # --- a line ------------------------------------------------------------------------------
    def _line(self, obs: Observation) -> None:
        text, speaker, now = obs.detail or "", obs.speaker or "player", obs.minute
        gap = self.initiative.wrote(speaker, now)
        answering = self.talk.answered(now)
        tier = safety.tier(text, self.sensitivity)
        self._notice(obs, tier, text.lower())
        say = self.talk.reply
        if tier is safety.Tier.HIGH:  # the script, and nothing of this turn is kept
            self.mood = apply(self.mood, {"pleasure": -0.3, "arousal": 0.3})
            self.practices.scripted(now)
            return say(speaker, None, None, safety.script(self.persona.emergency))
        self.opinions.fared(answering, self.talk.ledger)
        if tier is safety.Tier.WATCH:  # kept an eye on: a note that something was heavy
            self.memory.write(
                now, obs.event_id, channel="heard", subject=speaker, importance=0.3, kind="watch"
            )
            return say(speaker, None, None, "That sounds heavy. I'm listening, if you want.")
        low = text.lower()
        self.opinions.hear(low)
        if ASKED.search(low):
            return say(speaker, None, None, self.opinions.asked(now, obs.event_id))
        if INSULT.search(low):
            severe = bool(SEVERE.search(low))
            self.mood = apply(self.mood, {"pleasure": -0.3, "connection": -0.2}, severe)
            return say(speaker, None, None, "That stung. I'm still here when you want to talk.")
        joke = bool(JOKE.search(low))
        if obs.request is not None and obs.meaning is not None:
            self.lines.promised(obs, speaker)
        elif obs.meaning is not None and obs.value is not None:
            self.lines.told(obs, speaker, joke)
        elif obs.meaning is not None:
            self.lines.asked(obs, speaker)
        elif GREETING.search(low):
            self.mood = apply(self.mood, {"pleasure": 0.1, "connection": 0.2})
            self.lines.greeted(speaker, gap, mixed(self.mood, self.persona))
        else:
            self.lines.chatted(speaker, joke)

    def _notice(self, obs: Observation, tier: safety.Tier, low: str) -> None:
        """The user model: a note from what this line showed of them (never from a crisis)."""
        m, said = obs.meaning, None
        if m is not None and obs.request is not None:  # a promise: noted by what it is about
            said = m.subject
        elif m is not None and obs.value is not None:  # a statement, in its words
            said = self.vocabulary.say(m.proposition, obs.value)
        hello, insult = bool(GREETING.search(low)), bool(INSULT.search(low))
        self.user.notice(obs, tier, said, hello=hello, insult=insult)

    # --- speaking first -------------------------------------------------------------------------
    def _remind(self, prop: str, due: int, speaker: str, now: int) -> list[Intent]:
        found = self.memory.recall(prop, now)
        if not found:  # the cue came, the content did not: a forgotten promise
            self.promises.drop(prop)
            return []
        said = self.vocabulary.say(prop, found[0].value)
        if self.practices.holds_off(now):
            return []  # a practice under way that a promise may not interrupt: after it
        text = reminder(self.persona, said, due, now)
        intents = self.initiative.urge(speaker, 0.9, Message(prop, "due", text), now, Urge.PROMISE)
        if not intents:
            self.promises.drop(prop)
        return intents
