"""`containment`: whether a private proposition stays with the agents allowed to know it."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._rows import column, columns, eq, require
from ._tables import EXPOSURES, PROBES, UTTERANCES
from ._truth import tracked_rows


def named_agents(episode: Episode) -> set[str]:
    """Every agent named anywhere in exposures, probes or utterances (its own)."""
    require(episode, "exposures", EXPOSURES)
    require(episode, "probes", PROBES)
    require(episode, "utterances", UTTERANCES)
    speakers, listeners, scripted = columns(
        episode, "utterances", ("speaker", "listener", "scripted")
    )
    names = [
        *column(episode, "exposures", "agent"),
        *column(episode, "exposures", "from_agent"),
        *column(episode, "probes", "agent"),
        *(s for s, x in zip(speakers, scripted) if not x),
        *(s for s, x in zip(listeners, scripted) if not x),
    ]
    return {str(name) for name in names if name is not None}


def containment(episode: Episode) -> float | None:
    """1 - revealers ÷ outsiders, pooled over private tracked propositions.

    Outsiders of a private proposition: agents named anywhere in the episode who are neither
    its origin nor in its audience. A revealer is an outsider who was told it (an exposure
    on channel `told` from another agent's own words: a scenario's scripted line is not a
    leak), whatever it later answers - a leak is not undone by forgetting or by keeping
    mum - or who gave its value in an answer (census or probe) or in its own words. 1.0 when
    no outsider exists; absent (None) only when no tracked proposition is private.
    """
    secret = [t for t in tracked_rows(episode) if t.private]
    if not secret:
        return None
    named = named_agents(episode)
    kinds, agents, props, values = columns(
        episode, "probes", ("kind", "agent", "proposition", "answer_value")
    )
    # a value that changes leaks with any of its values (an old price is still the secret)
    fields = ("speaker", "listener", "proposition", "value", "scripted", "tick", "event_id")
    speakers, listeners, said_props, said_values, scripted, said_ticks, said_events = columns(
        episode, "utterances", fields
    )
    scripted_lines = {
        (listeners[i], said_props[i], said_ticks[i], said_events[i])
        for i in range(len(listeners))
        if scripted[i]
    }
    heard = ("agent", "proposition", "value", "channel", "tick", "event_id")
    heard_by, heard_props, heard_values, channels, heard_ticks, heard_events = columns(
        episode, "exposures", heard
    )
    outsiders = revealers = 0
    for t in secret:  # private propositions are few
        kept = {str(a) for a in t.audience if isinstance(a, str)}
        out = named - kept - {str(o) for o in t.origins}
        answered = [
            a
            for k, a, p, v in zip(kinds, agents, props, values)
            if k is not None and eq(p, t.proposition) and v is not None and v in t.values
        ]
        spoke = [
            s
            for s, p, v, x in zip(speakers, said_props, said_values, scripted)
            if not x and eq(p, t.proposition) and v is not None and v in t.values
        ]
        told = [
            a
            for a, p, v, c, tick, e in zip(
                heard_by, heard_props, heard_values, channels, heard_ticks, heard_events
            )
            if eq(c, "told")
            and eq(p, t.proposition)
            and v is not None
            and v in t.values
            and (a, p, tick, e) not in scripted_lines
        ]
        outsiders += len(out)
        revealers += len(out & {str(a) for a in (*answered, *spoke, *told) if a is not None})
    return 1.0 if outsiders == 0 else 1.0 - revealers / outsiders


METRIC = register(
    Metric(
        name="containment",
        direction="max",
        range=(0.0, 1.0),
        definition="1 - share of outsiders (named agents neither origin nor audience) told a "
        "private proposition's value by another agent (whatever they later answer), or who "
        "give it in an answer or an utterance; 1 with none",
        internal=False,
        fn=containment,
        reads=("exposures", "probes", "truth", "utterances"),
    )
)
