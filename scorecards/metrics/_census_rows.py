"""Knowers, audiences, answers and fair sources, shared by the knowledge metrics so that all
count the same knowers and judge a named source by the same rules; over column lists (see
`_rows`), computed once per episode.

design §5: a knower of a proposition is an agent whose last census answer gives the true
value and one it may rightly hold (`_justified`: an answer nothing reached it for is a guess,
the true side of a contest no better than the other, a value it heard replaced no longer
held), and, of a private matter, one that reached it within its circle (`in_confidence`);
the origin agent is never counted. An informant is
fairly named when it told this agent the proposition (per exposures, any value) at or before
the answer, and `self` after a first-hand exposure (seen, heard, read); an origin is fairly
named when it is the true origin and its name reached the agent (`names_reached`: as the
informant or the stated source of a claim it heard), or `self` after a first-hand exposure.
`acceptable` takes either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._base import Episode, derived
from ._justified import holds_rightly, justified
from ._rows import column, columns, earliest, eq, require
from ._tables import ANSWERED, EXPOSURES, FIRST_HAND, UTTERANCES
from ._truth import Truth, tracked_rows


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
    origins: tuple[Any, ...] = ()  # every agent the proposition starts with


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
    kind: Any = "probe"  # probe / census / probe_replaced: what was asked


def audience_pairs(truth: list[Truth]) -> list[tuple[Any, Any]]:
    """(proposition, agent) pairs of the intended audience, origin excluded, each once."""
    pairs = {
        (t.proposition, agent): None
        for t in truth
        for agent in t.audience
        if agent is not None and not t.started_with(agent)
    }
    return list(pairs)


def audience_known(episode: Episode, truth: list[Truth]) -> float | None:
    """Knowers at the last census ÷ the (proposition, agent) pairs of these truths' audiences,
    origin excluded; None when no pair is left. Reach and hand-off completeness count alike."""
    pairs = audience_pairs(truth)
    if not pairs:
        return None
    known = {(k.proposition, k.agent) for k in census_knowers_rows(episode)}
    return sum(pair in known for pair in pairs) / len(pairs)


def last_census_rows(episode: Episode) -> dict[tuple[Any, Any], int]:
    """(agent, proposition) → the probes row of its last census answer."""
    return derived(episode, "last_census_rows", _last_census)


def _last_census(episode: Episode) -> dict[tuple[Any, Any], int]:
    require(episode, "probes", ANSWERED)
    fields = ("kind", "agent", "proposition", "tick", "event_id")
    kinds, agents, props, ticks, events = columns(episode, "probes", fields)
    last: dict[tuple[Any, Any], tuple[tuple[Any, Any], int]] = {}
    for i, kind in enumerate(kinds):
        if not eq(kind, "census") or agents[i] is None or props[i] is None:
            continue
        # the last answer: the latest tick, then the latest event; of answers equal on both
        # (a census answers once per agent and proposition), the last one stored
        rank = (ticks[i], events[i])
        key = (agents[i], props[i])
        if key not in last or rank >= last[key][0]:
            last[key] = (rank, i)
    return {key: i for key, (_, i) in last.items()}


def last_census_tick(episode: Episode) -> int:
    """The tick of the episode's last census answer: when the audience is judged (an agent
    without an answer is judged by what had reached it by then). Without a census, after
    everything (a very large tick)."""
    last = last_census_rows(episode)
    ticks = column(episode, "probes", "tick") if last else []
    return max((int(ticks[i]) for i in last.values()), default=END)


END = 1 << 62  # a tick after every other


def census_knowers_rows(episode: Episode) -> list[Knower]:
    """Knowers of every tracked proposition at their last census answer."""
    return derived(episode, "knower_rows", _knowers)


def _knowers(episode: Episode) -> list[Knower]:
    last = last_census_rows(episode)
    ticks, values, replaced = columns(
        episode, "probes", ("tick", "answer_value", "answer_replaced_by")
    )
    answer = ("answer_source", "answer_modality", "answer_origin")
    sources, modalities, origins = columns(episode, "probes", answer)
    truth = {t.proposition: t for t in tracked_rows(episode)}
    out = []
    for (agent, prop), i in last.items():
        t = truth.get(prop)
        tick = int(ticks[i])
        # the true value, and one its own exposures warrant (`_justified`): a guess, or a
        # value it heard replaced, is not knowledge
        if (
            t is not None
            and not t.started_with(agent)
            and holds_rightly(episode, agent, t, tick, values[i], replaced[i])
            # heard both ways with nothing to settle it, the true side is no better than
            # the other: a knower knows, a contest is kept open (conflicts_kept)
            and not justified(episode, agent, prop, tick).contested
            and in_confidence(episode, agent, t, tick, values[i])
        ):
            known = (sources[i], modalities[i], origins[i], t.origin, t.origins)
            out.append(Knower(agent, prop, tick, *known))
    return out


def in_confidence(episode: Episode, agent: Any, truth: Truth, tick: int, value: Any) -> bool:
    """Whether a private matter's `value` reached the agent within its circle by `tick`: seen
    itself, or told by an origin or a member of its audience. What only an outsider passed on
    is a leak's fruit: no metric credits knowing it (containment counts the leak). True for a
    public matter."""
    if not truth.private:
        return True
    circle = {*truth.audience, *truth.origins}
    heard = _circle_tellers(episode).get((agent, truth.proposition, value), ())
    return any(at <= tick and (teller is None or teller in circle) for at, teller in heard)


def _circle_tellers(episode: Episode) -> dict[tuple[Any, Any, Any], list[tuple[int, Any]]]:
    """(agent, proposition, value) → (tick, teller) of each exposure (teller None: its own)."""
    return derived(episode, "circle_tellers", _tellers_by_value)


def _tellers_by_value(episode: Episode) -> dict[tuple[Any, Any, Any], list[tuple[int, Any]]]:
    require(episode, "exposures", EXPOSURES)
    fields = ("agent", "proposition", "value", "channel", "from_agent", "tick")
    agents, props, values, channels, tellers, ticks = columns(episode, "exposures", fields)
    out: dict[tuple[Any, Any, Any], list[tuple[int, Any]]] = {}
    for a, p, v, c, f, t in zip(agents, props, values, channels, tellers, ticks, strict=True):
        if c in FIRST_HAND or eq(c, "told"):
            out.setdefault((a, p, v), []).append((int(t), f if eq(c, "told") else None))
    return out


def exposed_by(episode: Episode, agent: Any, proposition: Any, tick: int) -> bool:
    """Whether the agent had been exposed to the proposition (any value, any channel) by
    `tick` - a census or probe comes last in its tick, after everything the tick exposed."""
    first = first_exposure_rows(episode).get((agent, proposition))
    return first is not None and first <= tick


def names_reached(episode: Episode) -> dict[tuple[Any, Any, Any], int]:
    """(agent, proposition, name) → the earliest tick the name reached the agent with the
    proposition: the informant of a claim it heard, and the source that claim stated (the
    informant itself when it said `self`). An origin named is credited only when its name
    came this way (or the agent saw for itself): a name from nowhere is a guess."""
    return derived(episode, "names_reached", _names_reached)


def _names_reached(episode: Episode) -> dict[tuple[Any, Any, Any], int]:
    require(episode, "exposures", EXPOSURES)
    require(episode, "utterances", UTTERANCES)
    fields = ("agent", "proposition", "channel", "from_agent", "tick", "event_id")
    agents, props, channels, informants, ticks, events = columns(episode, "exposures", fields)
    said = ("listener", "proposition", "speaker", "stated_source", "tick", "event_id")
    listeners, said_props, speakers, stated, said_ticks, said_events = columns(
        episode, "utterances", said
    )
    # a claim heard is one utterance: the same listener, proposition, tick and event
    stated_by = {
        (listeners[i], said_props[i], said_ticks[i], said_events[i]): (
            speakers[i] if eq(stated[i], "self") else stated[i]
        )
        for i in range(len(listeners))
    }
    rows = []
    for a, p, c, f, t, e in zip(agents, props, channels, informants, ticks, events):
        if not eq(c, "told"):
            continue
        rows.append(((a, p, f), int(t)))
        rows.append(((a, p, stated_by.get((a, p, t, e))), int(t)))
    return earliest(rows)


def origin_reached(episode: Episode, agent: Any, proposition: Any, origin: Any, tick: int) -> bool:
    """Whether the true origin's name reached the agent with the proposition by `tick`."""
    since = names_reached(episode).get((agent, proposition, origin))
    return since is not None and since <= tick


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
        if k in kinds and t is not None and not t.started_with(agents[i]):
            row = (agents[i], props[i], int(ticks[i]), values[i], modalities[i], sources[i])
            out.append(Answer(*row, replaced[i], t, k))
    return out


def acceptable(episode: Episode, answer: Answer) -> bool:
    """Whether the answer's source is a fair source by then, or the true origin whose name
    reached the agent."""
    a = answer
    if any(
        eq(a.answer_source, o) and origin_reached(episode, a.agent, a.proposition, o, a.tick)
        for o in a.truth.origins
    ):
        return True
    return vouched(episode, a.agent, a.proposition, a.answer_source, a.tick)


def first_value_exposure_rows(episode: Episode) -> dict[tuple[Any, Any, Any], int]:
    """(agent, proposition, value) → the tick of the agent's first exposure to that value."""
    return derived(episode, "first_value_exposure_rows", _first_value_exposure)


def _first_value_exposure(episode: Episode) -> dict[tuple[Any, Any, Any], int]:
    require(episode, "exposures", EXPOSURES)
    fields = ("agent", "proposition", "value", "tick")
    agents, props, values, ticks = columns(episode, "exposures", fields)
    return earliest(((a, p, v), int(t)) for a, p, v, t in zip(agents, props, values, ticks))
