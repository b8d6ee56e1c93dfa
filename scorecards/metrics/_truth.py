"""The scenario's tracked propositions as the scorecard reads them from the `truth` table:
one `Truth` each, with its successive values, its origins and what it replaces."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._base import Episode, derived
from ._rows import added_column, column, columns, eq, require
from ._tables import SEVERAL_ORIGINS, TRUTH


@dataclass(frozen=True)
class Truth:
    """One tracked proposition. `states` are its successive values as (first tick, value),
    in order: one state holding throughout (first tick None), or a value that changes."""

    proposition: Any
    states: tuple[tuple[int | None, Any], ...]
    modality: Any
    origin: Any
    audience: tuple[Any, ...]
    private: Any
    supersedes: Any
    # every agent it starts with: its origin, or its several origins (each with the modality
    # and the tick it was told, in step); empty for an unsigned note
    origins: tuple[Any, ...] = ()
    origin_modalities: tuple[Any, ...] = ()
    origin_ticks: tuple[int, ...] = ()

    def started_with(self, agent: Any) -> bool:
        return any(eq(agent, o) for o in self.origins)

    @property
    def changes(self) -> bool:
        return len(self.states) > 1

    def value_at(self, tick: int) -> Any:
        """The value that holds at `tick` (None before the first one holds: nothing is true
        of it yet, so no answer is right)."""
        return self._state_at(tick)[1]

    def replaced_at(self, tick: int) -> Any:
        """The value the one holding at `tick` replaced (None: it replaced nothing)."""
        index = self._state_at(tick)[0]
        return self.states[index - 1][1] if index > 0 else None

    def older_values(self, tick: int) -> tuple[Any, ...]:
        """The values that held before the one holding at `tick`."""
        return tuple(v for _, v in self.states[: max(self._state_at(tick)[0], 0)])

    def held_by(self, tick: int) -> tuple[Any, ...]:
        """The values that held at or before `tick`: true once, if not now."""
        return tuple(v for _, v in self.states[: self._state_at(tick)[0] + 1])

    @property
    def values(self) -> tuple[Any, ...]:
        return tuple(v for _, v in self.states)

    def _state_at(self, tick: int) -> tuple[int, Any]:
        held: tuple[int, Any] = (-1, None)
        for i, (first, value) in enumerate(self.states):
            if first is None or first <= tick:
                held = (i, value)
        return held


def tracked_rows(episode: Episode) -> list[Truth]:
    """The tracked propositions, one row each (a proposition twice is a broken trace)."""
    return derived(episode, "tracked_rows", _tracked)


def _tracked(episode: Episode) -> list[Truth]:
    require(episode, "truth", TRUTH)
    fields = ("proposition", "value", "modality", "origin", "audience", "private", "supersedes")
    props, values, modalities, origins, audiences, private, supersedes = columns(
        episode, "truth", fields
    )
    several = [added_column(episode, "truth", field) for field in SEVERAL_ORIGINS]
    rows_of: dict[Any, list[int]] = {}
    for i, p in enumerate(props):
        rows_of.setdefault(p, []).append(i)
    # successive values: one row per value, each from its first tick (valid_from)
    starts = None
    if len(rows_of) < len(props):
        require(episode, "truth", ("valid_from",))
        starts = column(episode, "truth", "valid_from")
    out = []
    for p, held in rows_of.items():
        i = held[0]
        if starts is None or len(held) == 1:  # one row: a value that holds throughout
            states: tuple[tuple[int | None, Any], ...] = ((None, values[i]),)
        else:
            states = tuple((None if starts[k] is None else int(starts[k]), values[k]) for k in held)
            firsts = [first for first, _ in states]
            later = [first for first in firsts[1:] if first is not None]
            known = later if firsts[0] is None else [firsts[0], *later]
            if len(later) < len(firsts) - 1 or known != sorted(set(known)):
                raise ValueError(
                    f"the truth table holds {p!r} twice without successive first ticks "
                    "(valid_from); expected one row each, or one per value in order"
                )
        o, m = origins[i], modalities[i]
        agents, kinds, ticks = (cells[i] for cells in several)
        out.append(
            Truth(
                p,
                states,
                m,
                o,
                tuple(audiences[i]) if audiences[i] is not None else (),
                private[i],
                supersedes[i],
                tuple(agents) if agents is not None else (() if o is None else (o,)),
                tuple(kinds) if kinds is not None else (() if o is None else (m,)),
                tuple(int(t) for t in ticks) if ticks is not None else (),
            )
        )
    return out
