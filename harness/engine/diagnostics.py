"""Typed diagnostic rows: an agent's internal traces (memory operations, belief and trust
changes, state samples, plan notes, model calls, lessons). Written to their own tables, never
scored; the harness only reads `MemoryOp.experience_owner` for its isolation check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .kinds import BeliefStatus, Modality, coerce_enums
from .records import quick_init


@quick_init
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


@quick_init
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

    __post_init__ = coerce_enums  # type: ignore[misc]  # quick_init inlines this very function


@quick_init
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


@quick_init
@dataclass(frozen=True)
class StateSample:
    table: ClassVar[str] = "state"
    minute: int
    event_id: int
    agent: str
    variable: str
    value: float


@quick_init
@dataclass(frozen=True)
class StateSnapshot:
    """One agent's state samples at one minute, as `StateSample`s of each variable in turn
    would be: one `state` row per variable (an hourly snapshot is one record, not eight)."""

    table: ClassVar[str] = "state"
    minute: int
    event_id: int
    agent: str
    variables: tuple[str, ...]
    values: tuple[float, ...]

    def cells(self) -> list[object]:
        """The rows' values one after another, each as (minute, event id, agent, variable,
        value): `Recorder.add_row`'s cells of all of them."""
        cells: list[object] = [self.minute, self.event_id, self.agent, None, None] * len(
            self.variables
        )
        cells[3::5] = self.variables  # a length that differs is a ValueError
        cells[4::5] = self.values
        return cells


@quick_init
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


@quick_init
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
    structured_output: str = "json_schema"  # how the schema was asked for (formats.py)
    outcome: str | None = None  # valid / corrected / rejected / fell_back / chose_nothing / failed
    tokens_reused: int | None = None  # prompt tokens the server's prefix cache served, if told
    prompt: str | None = None  # the messages as sent ("role: content" paragraphs)
    reply: str | None = None  # the reply's content as it came back


@quick_init
@dataclass(frozen=True)
class LessonNote:
    """A lesson drawn from outcomes: the ticks it cites as evidence and counter-evidence."""

    table: ClassVar[str] = "lessons"
    minute: int
    event_id: int
    agent: str
    lesson: str
    kind: str  # lesson / habit
    text: str  # when ..., I ..., it went ...; next time ...
    evidence: tuple[int, ...]
    counter: tuple[int, ...]
    gate: str  # kept / no_evidence / no_counter / platitude


DiagnosticRow = (
    MemoryOp
    | BeliefChange
    | TrustChange
    | StateSample
    | StateSnapshot
    | PlanNote
    | ModelCall
    | LessonNote
)
# every type of row an agent may hand the harness, as `isinstance` takes them
ROW_TYPES = (
    MemoryOp,
    BeliefChange,
    TrustChange,
    StateSample,
    StateSnapshot,
    PlanNote,
    ModelCall,
    LessonNote,
)


INVENTORY = "inventory:"  # the state variables the harness writes: what each holder has


def own_state(agent: str, row: StateSample | StateSnapshot) -> None:
    """An agent's state rows name its own variables, never the harness's inventory counts (the
    conservation recount reads those: no agent may write them). TypeError otherwise."""
    variables = row.variables if isinstance(row, StateSnapshot) else (row.variable,)
    if any(str(v).startswith(INVENTORY) for v in variables):
        raise TypeError(f"agent {agent}: a state row names a harness variable ({INVENTORY}...)")
