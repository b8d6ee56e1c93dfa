"""The contract between the harness and an agent: frozen records, enums and the Agent protocol.

The harness owns the world (where agents are, what is true, what actions do) and records what
each agent was exposed to; an agent only perceives (`observe`), proposes (`decide`,
`converse`) and answers (`answer`). Any implementation of `Agent` is scored by the same
scorecard, from what it observably said and did. An agent is made by a factory from one
`AgentSetup`; its internal diagnostics are typed rows of the internal trace tables
(`harness.engine.diagnostics`).

Records coerce their enum fields on construction, so `Observation("notice", ...)` and
`Observation(ObservationKind.NOTICE, ...)` are the same record and a misspelt kind is a
`ValueError` where it is made. Lifecycles (belief status, plan stage, episode status) move only
as `harness.engine.lifecycle.transition` allows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, Protocol, runtime_checkable

from scenarios import AgentSpec, Sense  # Sense re-exported: agents import it with Meaning

from .kinds import (  # re-exported: agents import the enums with the records
    ActionStatus,
    BeliefStatus,
    Channel,
    EpisodeStatus,
    IntentKind,
    Modality,
    ObservationKind,
    PlanStage,
    Privacy,
    coerce_enums,
)
from .records import quick_init
from .rng import Draws


@dataclass(frozen=True)
class Meaning:
    """A proposition's identity and structure: (subject, predicate, object), and how it is
    said. It carries nothing of the ground truth (whether, until when, or instead of what it
    holds): an agent learns that only from what it perceives."""

    proposition: str
    subject: str
    predicate: str
    object: str
    # the scenario's vocabulary: how the predicate is said ("closed on day {object}"), and what
    # it does to plans about the subject (unusable / closes_early / kept_at), if anything
    phrase: str | None = None
    sense: Sense | None = None
    # how much a plan its news makes (a gathering to attend) weighs against a standing errand
    # at the same hour: only a higher priority than the errand's displaces it
    priority: int = 0
    # a quantity that takes one value after another (a price): news of another value is news
    # that it changed, not a contradiction - what kind of thing it is, never which value holds
    changes: bool = False


@quick_init
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
    # a reply to a promise it cannot keep at the moment asked: the moment it offers instead
    offered: int | None = None

    __post_init__ = coerce_enums  # type: ignore[misc]  # quick_init inlines this very function

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


@quick_init
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
    # an arrival: who else is there, sorted by name (as `detail` names them, split already)
    company: tuple[str, ...] = ()

    __post_init__ = coerce_enums  # type: ignore[misc]  # quick_init inlines this very function


@quick_init
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

    __post_init__ = coerce_enums  # type: ignore[misc]  # quick_init inlines this very function


@quick_init
@dataclass(frozen=True)
class Answer:
    """An answer to a probe; value None means "I don't know". `source` is who told the agent
    (its informant; "self" when it perceived the matter itself), `origin` where the agent
    believes the matter started, `replaced_by` the proposition the agent believes replaced this
    one (None: not replaced, or not known), `replaced` the value it believes the current one
    replaced (a quantity that changes; None: none, or not known)."""

    ENUMS: ClassVar[dict[str, type]] = {"modality": Modality}

    value: str | None
    modality: Modality | None
    source: str | None
    origin: str | None = None
    replaced_by: str | None = None
    replaced: str | None = None

    __post_init__ = coerce_enums  # type: ignore[misc]  # quick_init inlines this very function


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

    @cached_property  # set in the instance's dict at the first look: rows ask it often
    def name(self) -> str:
        return self.spec.id


class EpisodeStop(Exception):
    """Raised by an agent that cannot go on (its model is unreachable, a budget is spent): the
    episode ends with `status` and the message, and the run goes on with the others."""

    status: ClassVar[EpisodeStatus] = EpisodeStatus.FAILED
    spent: Any = None  # set by the engine: its rows' declared usage up to the stop


class DiagnosticRow(Protocol):
    """A row an agent hands the harness from `drain_diagnostics`: of a type registered with
    `harness.engine.diagnostics.diagnostic_row`, for an internal trace table."""

    table: ClassVar[str]

    @property
    def minute(self) -> int: ...

    @property
    def event_id(self) -> int: ...


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

__all__ = [
    "CONTRACT_METHODS",
    "ActionStatus",
    "Agent",
    "AgentSetup",
    "Answer",
    "BeliefStatus",
    "Channel",
    "Claim",
    "DiagnosticRow",
    "Draws",
    "EpisodeStatus",
    "EpisodeStop",
    "Intent",
    "IntentKind",
    "Meaning",
    "Modality",
    "Observation",
    "ObservationKind",
    "PlanStage",
    "Privacy",
    "Request",
    "Sense",
]
