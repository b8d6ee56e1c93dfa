"""The contract between the harness and an agent: frozen records and the Agent protocol only.

The harness owns the world (where agents are, what is true, what actions do) and records what
each agent was exposed to; an agent only perceives (`observe`), proposes (`decide`,
`converse`) and answers (`answer`). Any implementation of `Agent` is scored by the same
scorecard, from what it observably said and did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


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
    """A proposition as one agent states it to another."""

    meaning: Meaning
    value: str
    modality: str  # as spoken: certain / likely / rumor
    stated_source: str | None  # "self", an agent's name, or None (no source given)
    privacy: str = "public"  # public / private
    audience: tuple[str, ...] = ()  # for a private claim: who may know it

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
    """What reached an agent's senses. Kinds:

    notice — a perceived world event about a proposition; claim — something said to it;
    arrival — it reached a place (with who is there); action_result — how its action went
    (only what the senses report); request — the player asked something; chat — it talked
    with someone; sound — something audible happened at a place (a supply arriving).
    """

    kind: str
    minute: int
    event_id: int
    channel: str  # seen / heard / read / told / did
    subject: str
    meaning: Meaning | None = None
    value: str | None = None
    modality: str | None = None
    speaker: str | None = None
    stated_source: str | None = None
    privacy: str = "public"
    audience: tuple[str, ...] = ()
    ok: bool | None = None
    detail: str | None = None
    request: Request | None = None
    importance: float | None = None  # a hint for everyday experiences


@dataclass(frozen=True)
class Intent:
    """What an agent proposes; the harness executes it against the world.

    move — go to `target`; act — go to `target` and do `action` there on arrival;
    decline — refuse a request where one stands, `target` naming the stance invoked.
    """

    kind: str
    target: str
    action: str | None = None
    plan_id: int | None = None
    goal: str | None = None
    request_id: str | None = None
    item: str | None = None
    minutes: int | None = None  # how long to keep at it (sleep); default: the action's own


@dataclass(frozen=True)
class Answer:
    """An answer to a probe; value None means "I don't know"."""

    value: str | None
    modality: str | None
    source: str | None


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

    def drain_diagnostics(self) -> list[tuple[str, dict[str, Any]]]:
        """Internal trace rows (table, columns) since the last call; may be empty."""

    def wake_at(self, now: int) -> int:
        """The next minute `decide` could return something; until then the harness does not
        ask (an agent asleep, walking or working costs nothing). Observations still arrive."""
