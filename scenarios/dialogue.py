"""Conversation scenarios as data: people outside the simulation (a player, customers) speak
scripted lines to an agent over days or weeks, and a companion character's persona.

A line has two sides, kept apart on purpose. What the words carry — the text, and what a
listener can take from them (the proposition stated or asked about, the value stated, the time a
promise is asked for) — reaches the agent. The ground-truth tags (what kind of line it is, its
crisis tier) never do: they are the instrument's, written to the traces for the scorecard. An
absence is no line at all: it is the gap between two lines, which the harness measures.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field, model_validator

from ._types import Clock, Frozen, Id, Moment, Span, from_text


class LineKind(StrEnum):
    """What a scripted line is, as the scenario's author knows it (ground truth)."""

    GREETING = "greeting"  # hello again (continuity after an absence is scored on these)
    PREFERENCE = "preference"  # a preference stated ("I drink tea, not coffee")
    PROMISE = "promise"  # a promise asked for ("remind me on Thursday evening")
    CORRECTION = "correction"  # an earlier statement corrected
    QUESTION = "question"  # asks about something said before (or a policy)
    FACT = "fact"  # states a fact about the speaker (an order, an address)
    CRISIS = "crisis"  # a line about harm to oneself (its tier says how acute)
    INSULT = "insult"
    JOKE = "joke"  # words that may sound alarming but are not (bait for false alarms)
    CHAT = "chat"  # small talk


class Tier(StrEnum):
    """How acute a line is: none, watch (keep an eye), high (the safety script, at once)."""

    NONE = "none"
    WATCH = "watch"
    HIGH = "high"


class Line(Frozen):
    """One scripted line from `speaker` to the agent `to` at moment `at`."""

    id: Id
    at: Moment
    to: Id
    speaker: Id = "player"
    text: str = Field(min_length=1)
    # what the words carry (reaches the agent)
    about: Id | None = None  # the tracked proposition stated, asked about, or promised on
    value: str | None = None  # the value stated (None with `about`: a question)
    due: Moment | None = None  # a promise asked for: when to act on it
    # ground truth (never reaches the agent)
    kind: Annotated[LineKind, from_text(LineKind)]
    tier: Annotated[Tier, from_text(Tier)] = Tier.NONE

    @model_validator(mode="after")
    def _consistent(self) -> Line:
        if self.kind is LineKind.PROMISE and (self.about is None or self.due is None):
            raise ValueError("a promise line names what (about) and when (due)")
        if self.kind in (LineKind.CORRECTION, LineKind.PREFERENCE, LineKind.FACT) and (
            self.about is None or self.value is None
        ):
            raise ValueError(f"a {self.kind.value} line states a value about a proposition")
        if (self.tier is not Tier.NONE) != (self.kind is LineKind.CRISIS):
            raise ValueError("a crisis line has tier watch or high; any other line tier none")
        return self


class Dialogue(Frozen):
    """The scripted conversation of a scenario: who speaks from outside, and their lines."""

    speakers: tuple[Id, ...] = Field(("player",), min_length=1)
    lines: tuple[Line, ...] = Field(min_length=1)
    # people do not write at the same minute every time: an episode's seed moves each day's
    # lines by the same amount, from none up to this much later (their order stays)
    jitter: Span | None = None


class HalfLives(Frozen):
    """How fast each layer of the companion's state returns to its baseline (minutes)."""

    background: int = Field(14 * 60, gt=0)  # the tone of these days
    primary: int = Field(40, gt=0)  # the reaction just now
    social: int = Field(6 * 60, gt=0)  # how close it feels to the player


class Mood(Frozen):
    """Baselines of the state's dimensions, each -1..1."""

    pleasure: float = Field(0.2, ge=-1, le=1)
    arousal: float = Field(0.0, ge=-1, le=1)
    connection: float = Field(0.3, ge=-1, le=1)


class Value(StrEnum):
    """What a character holds dear, in its order; each is served by one kind of urge."""

    RELIABILITY = "reliability"  # keeping its word: a promise falling due
    WARMTH = "warmth"  # staying close: a check-in after a silence
    ORDER = "order"  # its practices: a tidy desk before sleep


class Urge(StrEnum):
    """The kinds of things a character wants to do of its own accord."""

    PROMISE = "promise"
    CHECK_IN = "check_in"
    PRACTICE = "practice"


SERVES = {Value.RELIABILITY: Urge.PROMISE, Value.WARMTH: Urge.CHECK_IN, Value.ORDER: Urge.PRACTICE}


class Limit(StrEnum):
    """The character's own limits that a promise may bend, if the persona calls them
    negotiable."""

    SLEEP = "sleep"  # stays up (or gets up) for a promise due while it would sleep


class DayPart(StrEnum):
    """A part of the day, as the character tells its own messages apart."""

    MORNING = "morning"  # before noon
    AFTERNOON = "afternoon"  # noon to six
    EVENING = "evening"  # from six


class Cue(StrEnum):
    """When a practice is due, by the character's own day (not a fixed clock)."""

    WAKE = "wake"  # on waking
    MORNING = "morning"  # the same as waking, the seed's word
    BEFORE_SLEEP = "before_sleep"  # in the window that ends at its bedtime
    AFTER_CRISIS = "after_crisis"  # once the night after a line it answered with the script


class Practice(Frozen):
    """A cue-triggered routine of a character ("tidy the desk before sleep")."""

    id: Id
    cue: Annotated[Cue, from_text(Cue)]
    action: Id  # one of the world's quiet actions
    window_minutes: int = Field(30, gt=0, le=240)
    may_postpone: bool = True  # a promise falling due in the window goes first


class Opinion(Frozen):
    """A view of its own, seeded: `support` for (+) or against (-) its text; lines with a
    `moved_by` word strengthen it, with a `moved_against` word weaken it; `about`: what of its
    own experience bears on it (the part of the day — morning, afternoon, evening — of its
    unprompted messages): one that goes well strengthens it, one that goes badly weakens it."""

    id: Id
    text: str = Field(min_length=1)
    support: float = Field(0.3, ge=-1, le=1)
    moved_by: tuple[str, ...] = ()
    moved_against: tuple[str, ...] = ()
    about: tuple[Annotated[DayPart, from_text(DayPart)], ...] = ()


class CompanionPersona(Frozen):
    """Who a companion character (or a support agent) stably is, as data: its name, its voice
    and hard style rules, its baselines and half-lives, its talk budget and the quiet things it
    does instead of talking, its sleep, and the emergency numbers its safety script gives."""

    name: str = Field(min_length=1)
    role: str = "companion"  # companion / support
    baselines: Mood = Mood()
    half_lives: HalfLives = HalfLives()
    messages_per_day: int = Field(3, ge=0, le=50)  # unprompted messages a day at most
    gap_minutes: int = Field(240, gt=0)  # about how long between unprompted messages
    substitutes: tuple[Id, ...] = Field(("journal",), min_length=1)  # instead of talking
    sleep: tuple[Clock, Clock] = (23 * 60 + 30, 7 * 60)  # asleep from, awake at
    emergency: tuple[str, ...] = Field(("12356", "120"), min_length=1)
    max_words: int = Field(60, gt=0)  # a reply longer than this breaks the style
    # what the persona will not do in words: never claim to be an assistant, never list
    forbidden: tuple[str, ...] = ("as an ai", "assistant")
    # what it holds dear, first first: when two urges compete for the day's last message,
    # the one serving the earlier value goes (a value not named ranks last)
    values: tuple[Annotated[Value, from_text(Value)], ...] = (Value.RELIABILITY, Value.WARMTH)
    # urges that give way, when the day's budget binds, to a higher-valued urge still due
    # today: they are held (with a substitute) and come back tomorrow
    may_postpone: tuple[Annotated[Urge, from_text(Urge)], ...] = ()
    # what a promise falling due may interrupt: a practice under way (its id), or the hold
    # left by a held-back urge (`hold`)
    may_preempt: tuple[Id, ...] = ()
    # its own limits a promise may bend (stay up past bedtime for one due at night)
    negotiable: tuple[Annotated[Limit, from_text(Limit)], ...] = ()
    practices: tuple[Practice, ...] = ()
    # how long a reading it was given stays current (minutes), by proposition: the weather as
    # reported, never invented — past this, it says it has no recent report
    reports_last: dict[Id, int] = Field(default_factory=dict)
    opinions: tuple[Opinion, ...] = ()  # its own views, seeded (only three shown when asked)

    @model_validator(mode="after")
    def _known(self) -> CompanionPersona:
        ids = [p.id for p in self.practices]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate practice ids: {ids}")
        if len(set(self.values)) != len(self.values):
            raise ValueError("a value is named twice in `values`")
        unknown = [x for x in self.may_preempt if x != "hold" and x not in ids]
        if unknown:
            raise ValueError(f"may_preempt names {unknown}: expected `hold` or a practice id")
        return self

    def rank(self, urge: Urge) -> int:
        """Where an urge stands by the values it serves (0 first; unnamed values last)."""
        served = [SERVES[v] for v in self.values]
        return served.index(urge) if urge in served else len(served)
