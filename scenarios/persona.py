"""The persona: who an agent stably is, as validated, frozen data (design §2, Agent).

Everything here is an initial parameter that some choice reads: traits tilt scoring, protected
stances veto before scoring, practices are cue-triggered routines with variants and repair,
commitments carry a minimum duration before they can be preempted, abilities seed skill
confidence, situational rules add a preference or a prohibition in a matching situation, and the
baselines are where valence and arousal drift back to. What changes during a run lives in
`harness.agents.reference.model.life`, never here. Imports only pydantic and the standard library.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
Signed = Annotated[float, Field(ge=-1.0, le=1.0)]
Name = Annotated[str, Field(min_length=1, max_length=64)]
SituationKey = Literal["role", "object", "place", "occasion"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Traits(_Frozen):
    """Stable tendencies that tilt choices smoothly; never absolute rules."""

    curiosity: Unit = 0.5
    caution: Unit = 0.5
    extraversion: Unit = 0.5
    orderliness: Unit = 0.5


class Stance(_Frozen):
    """A protected stance: a veto before scoring, not a weight.

    `forbids` names actions or items. A negotiable stance may be argued over (a rule conflict)
    but is never silently outweighed by convenience, gain or repeated asking.
    """

    id: Name
    forbids: tuple[Name, ...] = Field(min_length=1)
    negotiable: bool = False
    reason: str = ""


class Practice(_Frozen):
    """A cue-triggered routine (e.g. tidy the desk before sleep), not a fixed timetable."""

    id: Name
    cue: Name
    action: Name
    variants: tuple[Name, ...] = ()  # lesser forms, e.g. only put away what is dangerous
    window_minutes: int = Field(60, gt=0)  # how long after the cue it still counts as done
    may_postpone: bool = True
    repair_next_day: bool = False  # an interrupted practice is made up the next day


class Commitment(_Frozen):
    """A standing intention with a minimum duration before anything may preempt it."""

    id: Name
    action: Name
    min_minutes: int = Field(0, ge=0)

    def may_preempt(self, started: int, now: int) -> bool:
        """Whether something else may take over at `now` when this began at `started`."""
        return now - started >= self.min_minutes


class Rule(_Frozen):
    """In a situation (any of role / object / place / occasion), prefer or forbid something."""

    when: dict[SituationKey, Name] = {}
    prefer: Name | None = None
    forbid: Name | None = None

    @model_validator(mode="after")
    def _does_something(self) -> Rule:
        if self.prefer is None and self.forbid is None:
            raise ValueError("a rule needs `prefer` or `forbid`")
        return self

    def applies(self, situation: Mapping[str, str]) -> bool:
        """True when every condition of `when` holds in `situation` (an empty `when` always)."""
        return all(situation.get(key) == value for key, value in self.when.items())


class Baselines(_Frozen):
    """Where valence and arousal drift back to when nothing happens."""

    valence: Signed = 0.1
    arousal: Unit = 0.4


class Persona(_Frozen):
    """Who the agent is: identity, traits, values, stances, practices, commitments, abilities,
    situational rules and baselines. `Persona()` is a valid, neutral persona."""

    role: str = "resident"
    description: str = ""
    traits: Traits = Traits()
    values: tuple[Name, ...] = ()
    stances: tuple[Stance, ...] = ()
    practices: tuple[Practice, ...] = ()
    commitments: tuple[Commitment, ...] = ()
    abilities: dict[Name, Unit] = {}  # skill → 0..1, the prior for skill confidence
    rules: tuple[Rule, ...] = ()
    baselines: Baselines = Baselines()

    @model_validator(mode="after")
    def _unique_ids(self) -> Persona:
        for kind, items in (
            ("stance", self.stances),
            ("practice", self.practices),
            ("commitment", self.commitments),
        ):
            ids = [item.id for item in items]
            duplicates = sorted({i for i in ids if ids.count(i) > 1})
            if duplicates:
                raise ValueError(f"duplicate {kind} ids: {duplicates}")
        return self

    def vetoes(self, *names: str) -> tuple[Stance, ...]:
        """The protected stances that forbid any of `names` (an action, an item), in file order."""
        wanted = set(names)
        return tuple(s for s in self.stances if wanted & set(s.forbids))

    def preferences(self, situation: Mapping[str, str]) -> tuple[str, ...]:
        """What the matching situational rules prefer, in file order, without repeats."""
        return tuple(
            dict.fromkeys(
                r.prefer for r in self.rules if r.prefer is not None and r.applies(situation)
            )
        )

    def prohibitions(self, situation: Mapping[str, str]) -> tuple[str, ...]:
        """What the matching situational rules forbid, in file order, without repeats."""
        return tuple(
            dict.fromkeys(
                r.forbid for r in self.rules if r.forbid is not None and r.applies(situation)
            )
        )
