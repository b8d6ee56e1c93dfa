"""Replanning delays: from an agent's first exposure to a deciding fact to its first in-line
decision after it. Shared by `time_to_replan` and `time_to_replan_group`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._base import Episode, derived
from ._census_rows import first_exposure_rows
from ._decisions import compound_exposures
from ._rows import columns, require
from ._tables import ACTIONS, episode_end


@dataclass(frozen=True)
class Delay:
    agent: Any
    proposition: Any  # the deciding proposition, or the id of a point decided by several
    delay: float  # ticks


def replan_delays(episode: Episode) -> list[Delay]:
    """One row per (agent, deciding proposition) where the agent answered a decision point on
    that proposition and was exposed to it: agent, proposition, delay (ticks). A point decided
    by several propositions (`when`) is its own unit, from the tick they settled it
    (`compound_exposures`).

    delay = first in-line decision-point action strictly after the first exposure - that
    exposure; censored at the episode end (the last census) when no such action follows.
    """
    return derived(episode, "replan_delays", _delays)


def _delays(episode: Episode) -> list[Delay]:
    require(episode, "actions", ACTIONS)
    fields = ("agent", "proposition", "decision_point", "in_line", "tick")
    agents, props, points, in_line, ticks = columns(episode, "actions", fields)
    first = first_exposure_rows(episode)
    settled = compound_exposures(episode)
    exposure: dict[tuple[Any, Any], int] = {}  # (agent, what decides) → its first exposure
    units: dict[tuple[Any, Any], int | None] = {}  # (agent, what decides) → first in-line tick
    for i, point in enumerate(points):
        if point is None:
            continue
        # a point decided by several propositions is its own unit, settled as in _decisions
        compound = props[i] is None
        key = (agents[i], point) if compound else (agents[i], props[i])
        exposed = settled.get(key) if compound else first.get(key)
        if exposed is None:
            continue
        exposure[key] = exposed
        acted = units.get(key)
        if in_line[i] and ticks[i] > exposed and (acted is None or ticks[i] < acted):
            units[key] = int(ticks[i])
        else:
            units.setdefault(key, None)
    if not units:
        return []
    end = float(episode_end(episode))
    return [
        Delay(agent, unit, max((end if done is None else float(done)) - exposure[agent, unit], 0.0))
        for (agent, unit), done in units.items()
    ]
