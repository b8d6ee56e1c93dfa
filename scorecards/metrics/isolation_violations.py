"""`isolation_violations`: an agent asserting what only another agent's mind held (design §2).

Checked by the harness's evidence, never the agent's own report: what an agent says (its
utterances, its asserting probe and census answers) against what it was exposed to. Memory
namespaces that bled into each other would show as an agent asserting a tracked proposition it
never perceived, with the very value another agent had perceived.
"""

from __future__ import annotations

from typing import Any

from ._base import Episode, Metric, register
from ._rows import columns, earliest, ne, require
from ._tables import ANSWERED, EXPOSURES, UTTERANCES
from ._truth import tracked_rows


def _assertions(episode: Episode) -> list[tuple[Any, Any, Any, int]]:
    """(agent, proposition, value, tick) of every assertion about a tracked proposition:
    the agents' own utterances, then the probe answers that give a value."""
    require(episode, "utterances", UTTERANCES)
    require(episode, "probes", ANSWERED)
    fields: tuple[str, ...] = ("speaker", "proposition", "value", "tick", "scripted")
    speakers, props, values, ticks, scripted = columns(episode, "utterances", fields)
    spoken = [
        (speakers[i], props[i], values[i], int(ticks[i]))
        for i in range(len(speakers))
        if not scripted[i]  # a scenario's scripted lines are not anyone's words
    ]
    fields = ("agent", "proposition", "answer_value", "tick")
    agents, props, values, ticks = columns(episode, "probes", fields)
    answered = [
        (agents[i], props[i], values[i], int(ticks[i]))
        for i in range(len(agents))
        if values[i] is not None
    ]
    # the origin is never counted: it holds its own proposition first (a request's outcome
    # is what it did, which it saw for itself and no harness notice tells it)
    truth = {t.proposition: t for t in tracked_rows(episode)}
    return [a for a in spoken + answered if a[1] in truth and not truth[a[1]].started_with(a[0])]


def isolation_violations(episode: Episode) -> float | None:
    """Count of (agent, proposition) pairs where the agent — not the proposition's origin —
    asserted a tracked proposition, in an utterance of its own or an asserting probe/census
    answer, with no exposure of its own to that proposition (any value) at or before, while
    another agent had been exposed to it with the asserted value by then.

    Absent (None) only when the episode tracks no proposition.
    """
    if not tracked_rows(episode):
        return None
    asserted = _assertions(episode)
    if not asserted:
        return 0.0
    require(episode, "exposures", EXPOSURES)
    fields = ("agent", "proposition", "value", "tick")
    agents, props, values, ticks = columns(episode, "exposures", fields)
    own = earliest(((a, p), int(t)) for a, p, t in zip(agents, props, ticks))
    # per (proposition, value): each agent's first exposure (None counts as an agent here)
    first: dict[tuple[Any, Any], dict[Any, int]] = {}
    for a, p, v, t in zip(agents, props, values, ticks):
        per_agent = first.setdefault((p, v), {})
        if a not in per_agent or t < per_agent[a]:
            per_agent[a] = int(t)
    earliest_two = {
        key: sorted((t, a is None, a) for a, t in per.items())[:2] for key, per in first.items()
    }
    leaked = set()
    for agent, prop, value, tick in asserted:
        seen = own.get((agent, prop))
        if seen is not None and seen <= tick:
            continue
        # the earliest exposure of another agent (`ne`: a null agent is another to anyone)
        others = [t for t, _, a in earliest_two.get((prop, value), ()) if ne(a, agent)]
        if others and others[0] <= tick:
            leaked.add((agent, prop))
    return float(len(leaked))


METRIC = register(
    Metric(
        name="isolation_violations",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of (agent, proposition) pairs asserted (utterance or answer) by an "
        "agent never exposed to the proposition, with a value another agent had been exposed to",
        internal=False,
        fn=isolation_violations,
        reads=("exposures", "probes", "truth", "utterances"),
    )
)
