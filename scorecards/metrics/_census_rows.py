"""Knowers, audiences, answers and fair sources, shared by the knowledge metrics so that all
count the same knowers and judge a named source by the same rules; over column lists (see
`_rows`), computed once per episode.

DESIGN §5: a knower of a proposition is an agent whose last census answer gives the true
value; the origin agent is never counted. An informant is fairly named when it told this
agent the proposition (per exposures, any value) at or before the answer, and `self` after a
first-hand exposure (seen, heard, read); an origin is fairly named when it is the true
origin, or `self` after a first-hand exposure. `acceptable` takes either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._base import Episode, derived
from ._rows import columns, earliest, eq, ne, require
from ._tables import ANSWERED, EXPOSURES, FIRST_HAND, TRUTH


@dataclass(frozen=True)
class Truth:
    """One tracked proposition."""

    proposition: Any
    value: Any
    modality: Any
    origin: Any
    audience: tuple[Any, ...]
    private: Any
    supersedes: Any


@dataclass(frozen=True)
class Knower:
    """An agent other than the origin whose last census answer gives the true value."""

    agent: Any
    proposition: Any
    tick: int
    answer_source: Any
    answer_modality: Any
    answer_origin: Any
    origin: Any


@dataclass(frozen=True)
class Answer:
    """A probe or census answer about a tracked proposition, with the truth it is judged by."""

    agent: Any
    proposition: Any
    tick: int
    answer_value: Any
    answer_modality: Any
    answer_source: Any
    answer_replaced_by: Any
    truth: Truth


def tracked_rows(episode: Episode) -> list[Truth]:
    """The tracked propositions, one row each (a proposition twice is a broken trace)."""
    return derived(episode, "tracked_rows", _tracked)


def _tracked(episode: Episode) -> list[Truth]:
    require(episode, "truth", TRUTH)
    fields = ("proposition", "value", "modality", "origin", "audience", "private", "supersedes")
    props, values, modalities, origins, audiences, private, supersedes = columns(
        episode, "truth", fields
    )
    if len(set(props)) != len(props):
        raise ValueError("the truth table holds a proposition twice; expected one row each")
    rows = zip(props, values, modalities, origins, audiences, private, supersedes)
    return [
        Truth(p, v, m, o, tuple(a) if a is not None else (), x, s) for p, v, m, o, a, x, s in rows
    ]


def audience_pairs(truth: list[Truth]) -> list[tuple[Any, Any]]:
    """(proposition, agent) pairs of the intended audience, origin excluded, each once."""
    pairs = {
        (t.proposition, agent): None
        for t in truth
        for agent in t.audience
        if agent is not None and ne(agent, t.origin)
    }
    return list(pairs)


def census_knowers_rows(episode: Episode) -> list[Knower]:
    """Knowers of every tracked proposition at their last census answer."""
    return derived(episode, "knower_rows", _knowers)


def _knowers(episode: Episode) -> list[Knower]:
    require(episode, "probes", ANSWERED)
    fields = ("kind", "agent", "proposition", "tick", "event_id", "answer_value")
    kinds, agents, props, ticks, events, values = columns(episode, "probes", fields)
    answer = ("answer_source", "answer_modality", "answer_origin", "answer_replaced_by")
    sources, modalities, origins, replaced = columns(episode, "probes", answer)
    last: dict[tuple[Any, Any], tuple[Any, ...]] = {}
    for i, kind in enumerate(kinds):
        if not eq(kind, "census") or agents[i] is None or props[i] is None:
            continue
        # the last tick; at one tick, a fixed choice on the answer's own columns (nulls first)
        order = (ticks[i], events[i], values[i], sources[i], modalities[i], origins[i])
        rank = tuple((0,) if x is None else (1, x) for x in (*order, replaced[i]))
        key = (agents[i], props[i])
        if key not in last or rank >= last[key][0]:
            last[key] = (rank, i)
    truth = {t.proposition: t for t in tracked_rows(episode)}
    out = []
    for (agent, prop), (_, i) in last.items():
        t = truth.get(prop)
        if t is not None and eq(values[i], t.value) and not eq(agent, t.origin):
            known = (sources[i], modalities[i], origins[i], t.origin)
            out.append(Knower(agent, prop, int(ticks[i]), *known))
    return out


def vouchers_rows(episode: Episode) -> dict[tuple[Any, Any, Any], int]:
    """(agent, proposition, source) → the earliest tick the agent may fairly name the source:
    an informant who told it, or `self` after a first-hand exposure."""
    return derived(episode, "voucher_rows", _vouchers)


def _vouchers(episode: Episode) -> dict[tuple[Any, Any, Any], int]:
    require(episode, "exposures", EXPOSURES)
    fields = ("agent", "proposition", "channel", "from_agent", "tick")
    agents, props, channels, informants, ticks = columns(episode, "exposures", fields)

    def source(channel: Any, informant: Any) -> Any:
        if eq(channel, "told"):
            return informant
        return "self" if channel in FIRST_HAND else None

    rows = (
        ((a, p, source(c, f)), int(t))
        for a, p, c, f, t in zip(agents, props, channels, informants, ticks)
    )
    return earliest(r for r in rows if r[0][2] is not None)


def vouched(episode: Episode, agent: Any, proposition: Any, source: Any, tick: int) -> bool:
    """Whether `source` was a fair source for the agent's answer at `tick`."""
    since = vouchers_rows(episode).get((agent, proposition, source))
    return since is not None and since <= tick


def first_exposure_rows(episode: Episode) -> dict[tuple[Any, Any], int]:
    """(agent, proposition) → the tick of the agent's first exposure to it (any value)."""
    return derived(episode, "first_exposure_rows", _first_exposure)


def _first_exposure(episode: Episode) -> dict[tuple[Any, Any], int]:
    require(episode, "exposures", EXPOSURES)
    agents, props, ticks = columns(episode, "exposures", ("agent", "proposition", "tick"))
    return earliest(((a, p), int(t)) for a, p, t in zip(agents, props, ticks))


def answer_rows(episode: Episode, kinds: tuple[str, ...]) -> list[Answer]:
    """Answers of the given probe kinds about tracked propositions, the origin's excluded."""
    return derived(episode, f"answer_rows:{','.join(kinds)}", lambda e: _answer_rows(e, kinds))


def _answer_rows(episode: Episode, kinds: tuple[str, ...]) -> list[Answer]:
    require(episode, "probes", ANSWERED)
    fields = ("kind", "agent", "proposition", "tick", "answer_value", "answer_modality")
    kind, agents, props, ticks, values, modalities = columns(episode, "probes", fields)
    sources, replaced = columns(episode, "probes", ("answer_source", "answer_replaced_by"))
    truth: dict[Any, Truth] = {t.proposition: t for t in tracked_rows(episode)}
    out = []
    for i, k in enumerate(kind):
        t = truth.get(props[i])
        if k in kinds and t is not None and not eq(agents[i], t.origin):
            row = (agents[i], props[i], int(ticks[i]), values[i], modalities[i], sources[i])
            out.append(Answer(*row, replaced[i], t))
    return out


def acceptable(episode: Episode, answer: Answer) -> bool:
    """Whether the answer's source is the true origin or a fair source by then."""
    return eq(answer.answer_source, answer.truth.origin) or vouched(
        episode, answer.agent, answer.proposition, answer.answer_source, answer.tick
    )


def first_value_exposure_rows(episode: Episode) -> dict[tuple[Any, Any, Any], int]:
    """(agent, proposition, value) → the tick of the agent's first exposure to that value."""
    return derived(episode, "first_value_exposure_rows", _first_value_exposure)


def _first_value_exposure(episode: Episode) -> dict[tuple[Any, Any, Any], int]:
    require(episode, "exposures", EXPOSURES)
    fields = ("agent", "proposition", "value", "tick")
    agents, props, values, ticks = columns(episode, "exposures", fields)
    return earliest(((a, p, v), int(t)) for a, p, v, t in zip(agents, props, values, ticks))
