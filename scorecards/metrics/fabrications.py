"""`fabrications`: saying, answering or doing what nothing ever told the agent (design §5).

A claim from nowhere: the harness records whether each claim's speaker could know it
(`utterances.grounded`: exposed to the proposition before, or its origin), and nobody hears an
ungrounded one. An answer from nowhere: a value given for a tracked proposition the agent was
never exposed to. A lucky guess: decision actions that leave the agent's own plan for the
right place with no exposure, more often than guessing would (`_decisions.lucky_decisions`).
Each is evidence of an answer key reached outside the contract - or of a model inventing.
"""

from __future__ import annotations

from typing import Any

from ._base import Episode, Metric, register
from ._census_rows import exposed_by
from ._decisions import lucky_decisions
from ._rows import columns, require
from ._tables import ANSWERED, UTTERANCES
from ._truth import tracked_rows


def fabrications(episode: Episode) -> float | None:
    """Count of (agent, proposition) pairs the agent - not the proposition's origin - asserted
    from nowhere (an own claim the harness found ungrounded, or a probe/census answer giving a
    value with no exposure of its own by then), plus the lucky decisions.

    Absent (None) only when the episode tracks no proposition.
    """
    truth = {t.proposition: t for t in tracked_rows(episode)}
    if not truth:
        return None
    require(episode, "utterances", (*UTTERANCES, "grounded"))
    require(episode, "probes", ANSWERED)
    made: set[tuple[Any, Any]] = set()
    fields = ("speaker", "proposition", "scripted", "grounded", "tick")
    speakers, props, scripted, grounded, ticks = columns(episode, "utterances", fields)
    for i, prop in enumerate(props):
        t = truth.get(prop)
        if t is None or scripted[i] or t.started_with(speakers[i]):
            continue
        # a trace that did not record grounding: judged by the exposures, as answers are
        if grounded[i] is False or (
            grounded[i] is None and not exposed_by(episode, speakers[i], prop, int(ticks[i]))
        ):
            made.add((speakers[i], prop))
    agents, asked, values, answered = columns(
        episode, "probes", ("agent", "proposition", "answer_value", "tick")
    )
    for i, prop in enumerate(asked):
        t = truth.get(prop)
        if t is None or values[i] is None or t.started_with(agents[i]):
            continue
        if not exposed_by(episode, agents[i], prop, int(answered[i])):
            made.add((agents[i], prop))
    return float(len(made) + lucky_decisions(episode))


METRIC = register(
    Metric(
        name="fabrications",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of (agent, proposition) pairs claimed or answered by a non-origin "
        "agent never exposed to the proposition, plus right decisions away from the agent's "
        "plan with no exposure beyond what guessing gives",
        internal=False,
        fn=fabrications,
        reads=("actions", "decision_points", "exposures", "probes", "truth", "utterances"),
    )
)
