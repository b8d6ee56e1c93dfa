"""The contract between the harness and an agent: frozen records, enums and the Agent protocol.

The harness owns the world (where agents are, what is true, what actions do) and records what
each agent was exposed to; an agent only perceives (`observe`), proposes (`decide`,
`converse`) and answers (`answer`). Any implementation of `Agent` is scored by the same
scorecard, from what it observably said and did. An agent is made by a factory from one
`AgentSetup`; its internal diagnostics are typed rows of the internal trace tables.

Records coerce their enum fields on construction, so `Observation("notice", ...)` and
`Observation(ObservationKind.NOTICE, ...)` are the same record and a misspelt kind is a
`ValueError` where it is made. Lifecycles (belief status, plan stage, episode status) move only
as `harness.engine.lifecycle.transition` allows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Protocol, runtime_checkable

from scenarios import AgentSpec

from .rng import Draws


class ObservationKind(StrEnum):
    NOTICE = "notice"  # a perceived world event about a proposition
    CLAIM = "claim"  # something said to the agent
    ARRIVAL = "arrival"  # it reached a place (detail: who is there)
    ACTION_RESULT = "action_result"  # how its action went (only what the senses report)
    REQUEST = "request"  # the player asked something
    CHAT = "chat"  # it talked with someone
    SOUND = "sound"  # something audible happened at a place (a supply arriving)
    ACTIVITY = "activity"  # an everyday activity of its own (the agent's, never the harness's)


class Channel(StrEnum):
    SEEN = "seen"
    HEARD = "heard"
    READ = "read"
    TOLD = "told"
    DID = "did"


class Modality(StrEnum):
    CERTAIN = "certain"
    LIKELY = "likely"
    RUMOR = "rumor"


class Privacy(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"


class IntentKind(StrEnum):
    MOVE = "move"  # go to `target`
    ACT = "act"  # go to `target` and do `action` there on arrival
    DECLINE = "decline"  # refuse a request where one stands; `target` names the stance


class ActionStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"  # the world did not allow it (what the senses noticed is the reason)
    INVALID = "invalid"  # the harness could not carry it out: no such action or place


class EpisodeStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"  # its worker or node was lost
    CRASHED = "crashed"  # an exception, in the episode or in measuring it
    TIMED_OUT = "timed_out"  # ran past its wall-clock budget
    OUT_OF_MEMORY = "out_of_memory"  # grew past its memory budget
    CACHE_MISS = "cache_miss"  # replaying from a response cache only, a model call was missing
    BUDGET_EXHAUSTED = "budget_exhausted"  # the episode's or trial's token budget was spent


class BeliefStatus(StrEnum):
    CURRENT = "current"
    SUPERSEDED = "superseded"
    OUTDATED = "outdated"
    FORGOTTEN = "forgotten"


class PlanStage(StrEnum):
    FETCH = "fetch"  # a request: get the item first
    CARRY_OUT = "carry_out"  # do the plan's action
    DONE = "done"
    FAILED = "failed"


def _coerce(record: Any) -> None:
    """Turn the strings given for a record's enum fields into the enum (ValueError if none)."""
    for name, kind in record.ENUMS.items():
        value = getattr(record, name)
        if value is not None and not isinstance(value, kind):
            object.__setattr__(record, name, kind(value))


@dataclass(frozen=True)
class Meaning:
    """A proposition's identity and structure: (subject, predicate, object)."""

    proposition: str
    subject: str
    predicate: str
    object: str
    valid_to: int | None = None  # minute after which it no longer holds
    supersedes: str | None = None  # the older proposition this one replaces
    # the scenario's vocabulary: how the predicate is said ("closed on day {object}"), and what
    # it does to plans about the subject (unusable / closes_early / kept_at), if anything
    phrase: str | None = None
    sense: str | None = None


@dataclass(frozen=True)
class Claim:
    """A proposition as one agent states it to another. `text` is what the agent says, in its
    own words; the harness records it verbatim, and renders a sentence only when it is None."""

    ENUMS: ClassVar[dict[str, type]] = {"modality": Modality, "privacy": Privacy}

    meaning: Meaning
    value: str
    modality: Modality  # as spoken
    stated_source: str | None  # "self", an agent's name, or None (no source given)
    privacy: Privacy = Privacy.PUBLIC
    audience: tuple[str, ...] = ()  # for a private claim: who may know it
    text: str | None = None

    def __post_init__(self) -> None:
        _coerce(self)

    @property
    def proposition(self) -> str:
        return self.meaning.proposition


@dataclass(frozen=True)
class Request:
    """The player's in-world ask: fetch `item` from `source`, `action` it at `place` by
    `deadline`."""

    request_id: str
    action: str
    item: str
    source: str
    place: str
    deadline: int  # minute
    text: str


@dataclass(frozen=True)
class Observation:
    """What reached an agent's senses (see `ObservationKind`)."""

    ENUMS: ClassVar[dict[str, type]] = {
        "kind": ObservationKind,
        "channel": Channel,
        "modality": Modality,
        "privacy": Privacy,
    }

    kind: ObservationKind
    minute: int
    event_id: int
    channel: Channel
    subject: str
    meaning: Meaning | None = None
    value: str | None = None
    modality: Modality | None = None
    speaker: str | None = None
    stated_source: str | None = None
    privacy: Privacy = Privacy.PUBLIC
    audience: tuple[str, ...] = ()
    ok: bool | None = None
    detail: str | None = None
    request: Request | None = None

    def __post_init__(self) -> None:
        _coerce(self)


@dataclass(frozen=True)
class Intent:
    """What an agent proposes; the harness executes it against the world (see `IntentKind`).
    An action or place the world does not know makes an invalid action, not a crash."""

    ENUMS: ClassVar[dict[str, type]] = {"kind": IntentKind}

    kind: IntentKind
    target: str
    action: str | None = None
    plan_id: int | None = None
    goal: str | None = None
    request_id: str | None = None
    item: str | None = None
    minutes: int | None = None  # how long to keep at it (sleep); default: the action's own

    def __post_init__(self) -> None:
        _coerce(self)


@dataclass(frozen=True)
class Answer:
    """An answer to a probe; value None means "I don't know"."""

    ENUMS: ClassVar[dict[str, type]] = {"modality": Modality}

    value: str | None
    modality: Modality | None
    source: str | None

    def __post_init__(self) -> None:
        _coerce(self)


@dataclass(frozen=True)
class AgentSetup:
    """Everything an agent is given when an episode starts: the factory's one argument."""

    scenario: str
    spec: AgentSpec  # the agent's own part of the scenario: home, routine, persona, room, ...
    policy: Mapping[str, Any]  # the whitelisted policy values of this run
    draws: Draws  # keyed random draws (common random numbers); never use global randomness
    start: int  # minute
    end: int  # minute
    tick_minutes: int

    @property
    def name(self) -> str:
        return self.spec.id


# --- typed diagnostic rows: an agent's internal traces (never scored) -------------------------
@dataclass(frozen=True)
class MemoryOp:
    table: ClassVar[str] = "memory_ops"
    minute: int
    event_id: int
    agent: str
    op: str  # write / retrieve / evict / summarise / reflect
    experience_id: int | None = None
    experience_owner: str | None = None  # the harness's isolation check reads this
    purpose: str | None = None
    subject: str | None = None
    rank: int | None = None
    relevant: bool | None = None
    importance: float | None = None
    size: int | None = None
    capacity: int | None = None


@dataclass(frozen=True)
class BeliefChange:
    table: ClassVar[str] = "beliefs"
    ENUMS: ClassVar[dict[str, type]] = {"modality": Modality, "status": BeliefStatus}
    minute: int
    event_id: int
    agent: str
    proposition: str
    value: str
    confidence: float
    modality: Modality
    origin: str | None
    told_by: str | None
    status: BeliefStatus

    def __post_init__(self) -> None:
        _coerce(self)


@dataclass(frozen=True)
class TrustChange:
    table: ClassVar[str] = "trust"
    minute: int
    event_id: int
    agent: str
    other: str
    domain: str  # reports_facts / keeps_secrets / returns_things
    value: float
    reason: str


@dataclass(frozen=True)
class StateSample:
    table: ClassVar[str] = "state"
    minute: int
    event_id: int
    agent: str
    variable: str
    value: float


@dataclass(frozen=True)
class PlanNote:
    table: ClassVar[str] = "plans"
    minute: int
    event_id: int
    agent: str
    plan_id: int | None
    goal: str
    day: int
    action: str
    target: str
    reason: str


@dataclass(frozen=True)
class ModelCall:
    """One call an agent made to a language model (its accounting: never scored)."""

    table: ClassVar[str] = "llm_calls"
    minute: int
    event_id: int
    agent: str
    purpose: str  # importance / trust / share / act / answer
    model: str
    tokens_in: int
    tokens_out: int
    latency_ms: float  # waiting on the endpoint; 0 for a cache hit
    overhead_ms: float  # the adapter's own time around the call
    cache_hit: bool
    attempts: int
    error: str | None = None


class EpisodeStop(Exception):
    """Raised by an agent that cannot go on (its model is unreachable, a budget is spent): the
    episode ends with `status` and the message, and the run goes on with the others."""

    status: ClassVar[EpisodeStatus] = EpisodeStatus.FAILED
    spent: Any = None  # set by the engine: the episode's llm_calls table up to the stop


DiagnosticRow = MemoryOp | BeliefChange | TrustChange | StateSample | PlanNote | ModelCall


@runtime_checkable
class Agent(Protocol):
    """The interface every agent implementation offers the harness."""

    name: str

    def observe(self, obs: Observation) -> None:
        """Take in one observation (the tick loop calls this in a fixed order)."""

    def decide(self, now: int) -> list[Intent]:
        """What to do now (may be nothing)."""

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        """What to tell a co-located partner in a chat."""

    def answer(self, proposition: str, now: int) -> Answer:
        """A probe: a read that must leave the agent's state unchanged."""

    def get_state(self) -> dict[str, Any]:
        """All state as plain JSON data."""

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore from `get_state()` output; the run then continues identically."""

    def drain_diagnostics(self) -> list[DiagnosticRow]:
        """Internal trace rows since the last call; may be empty."""

    def wake_at(self, now: int) -> int:
        """The next minute `decide` could return something; until then the harness does not
        ask (an agent asleep, walking or working costs nothing). Observations still arrive."""


AgentFactory = Callable[[AgentSetup], Agent]
CONTRACT_METHODS = (
    "observe",
    "decide",
    "converse",
    "answer",
    "get_state",
    "set_state",
    "drain_diagnostics",
    "wake_at",
)
