"""Lifecycles as enums with allowed successors: one function checks every move.

A belief is made current or superseded; only a current belief becomes outdated (its time has
passed) or forgotten (its experiences were evicted); new evidence may make any belief current
again (or superseded, when a newer proposition replaces it). A belief may also be revised in
place with its status kept (an outdated belief whose experiences were summarised now names the
summary's sources: still outdated), so every status may stay what it is. A request's plan fetches, then
carries out, then is done — or fails, or is declined at once (done). An episode's record is
final when made, except that measuring a finished episode may still crash it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

from .contract import BeliefStatus, EpisodeStatus, PlanStage

E = TypeVar("E", bound=StrEnum)

_B, _P, _E = BeliefStatus, PlanStage, EpisodeStatus
_RELEARNED = frozenset({_B.CURRENT, _B.SUPERSEDED})
ALLOWED: dict[type[StrEnum], dict[StrEnum | None, frozenset[StrEnum]]] = {
    BeliefStatus: {
        None: _RELEARNED,  # a new belief
        _B.CURRENT: frozenset(BeliefStatus),
        _B.SUPERSEDED: _RELEARNED,
        _B.OUTDATED: _RELEARNED | {_B.OUTDATED},
        _B.FORGOTTEN: _RELEARNED | {_B.FORGOTTEN},
    },
    PlanStage: {
        None: frozenset({_P.FETCH, _P.CARRY_OUT}),
        _P.FETCH: frozenset({_P.FETCH, _P.CARRY_OUT, _P.DONE, _P.FAILED}),
        _P.CARRY_OUT: frozenset({_P.CARRY_OUT, _P.DONE, _P.FAILED}),
        _P.DONE: frozenset(),
        _P.FAILED: frozenset(),
    },
    EpisodeStatus: {
        None: frozenset(EpisodeStatus),
        _E.OK: frozenset({_E.CRASHED}),
        _E.FAILED: frozenset(),
        _E.CRASHED: frozenset(),
        _E.TIMED_OUT: frozenset(),
        _E.OUT_OF_MEMORY: frozenset(),
        _E.CACHE_MISS: frozenset(),
        _E.BUDGET_EXHAUSTED: frozenset(),
    },
}


class IllegalTransition(ValueError):
    """A lifecycle was asked to move where it may not."""


def transition(old: E | None, new: E) -> E:
    """`new`, if a record whose lifecycle stands at `old` (None: a new record) may move
    there; otherwise IllegalTransition, naming what is allowed."""
    allowed = ALLOWED[type(new)].get(old, frozenset())
    if new not in allowed:
        where = "a new record" if old is None else f"{old.value!r}"
        expected = ", ".join(sorted(a.value for a in allowed)) or "nothing (final)"
        raise IllegalTransition(
            f"{type(new).__name__}: {where} cannot become {new.value!r}; allowed: {expected}"
        )
    return new
