"""Independent sources of a proposition with several origins (`truth.origins`), from the
exposure chains: shared by the modality metrics so that all judge the same agents.

An agent is reached by two independent sources of a proposition by a tick when its exposures
trace back, through who told whom (each teller having been exposed, or being the origin told,
no later than it told), to two different origins along chains that share no teller. Hearing
the same rumour twice through one teller is one source; two witnesses each telling someone
who tells the agent are two. Only an origin's `likely` or `certain` report counts as a source
(two rumours do not make a fact). Such an agent may rightly hold the proposition from likely
to certain (`_justified`): its certainty is not false certainty, and `rumor` understates it.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from ._base import Episode, derived
from ._rows import columns, require
from ._tables import EXPOSURES
from ._truth import Truth

SOURCES = ("likely", "certain")  # an origin's reports that count as a source
DEPTH = 6  # tellers traced back from the agent: word passed on further is not followed
CHAINS = 64  # chains kept per agent and tick: enough to find two disjoint ones in a village


def independently_reached(episode: Episode, truth: Truth, agent: Any, tick: int) -> bool:
    """Whether `agent` was reached by two independent sources of `truth` by `tick` (only
    for a truth with several origins; False otherwise)."""
    if len(truth.origin_ticks) < 2:
        return False
    told = _tellers(episode).get(truth.proposition, {})
    origins = {
        o: t
        for o, m, t in zip(truth.origins, truth.origin_modalities, truth.origin_ticks)
        if m in SOURCES
    }
    chains = _chains(told, origins, agent, tick)
    # two chains share no teller (an origin that told the agent is its own last teller)
    return any(not set(a) & set(b) for a, b in combinations(chains, 2))


def _chains(
    told: dict[Any, list[tuple[int, Any]]], origins: dict[Any, int], agent: Any, tick: int
) -> list[tuple[Any, ...]]:
    """Chains (origin, teller, ..., last teller) by which word reached `agent` by `tick`."""
    out: list[tuple[Any, ...]] = []

    def back(who: Any, by: int, path: tuple[Any, ...]) -> None:
        for at, teller in told.get(who, ()):
            if len(out) >= CHAINS or at > by or teller in path or teller == agent:
                continue
            chain = (teller, *path)
            if teller in origins and origins[teller] <= at:
                out.append(chain)  # an origin told it, having been told itself
            elif len(chain) < DEPTH:
                back(teller, at, chain)

    back(agent, tick, ())
    return out


def _tellers(episode: Episode) -> dict[Any, dict[Any, list[tuple[int, Any]]]]:
    """proposition → agent → (tick, teller) of every exposure told by another agent."""
    return derived(episode, "tellers", _told)


def _told(episode: Episode) -> dict[Any, dict[Any, list[tuple[int, Any]]]]:
    require(episode, "exposures", EXPOSURES)
    fields = ("agent", "proposition", "from_agent", "tick")
    agents, props, tellers, ticks = columns(episode, "exposures", fields)
    out: dict[Any, dict[Any, list[tuple[int, Any]]]] = {}
    for agent, prop, teller, tick in zip(agents, props, tellers, ticks):
        if teller is not None and teller != agent:
            out.setdefault(prop, {}).setdefault(agent, []).append((int(tick), teller))
    for by_agent in out.values():
        for rows in by_agent.values():
            rows.sort(key=lambda r: (r[0], str(r[1])))
    return out
