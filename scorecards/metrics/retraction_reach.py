"""`retraction_reach`: whether a retraction reaches those who passed on what it retracts."""

from __future__ import annotations

from typing import Any

from ._base import Episode, Metric, register
from ._census_rows import census_knowers_rows
from ._rows import columns, eq, require
from ._tables import UTTERANCES
from ._truth import tracked_rows


def retraction_reach(episode: Episode) -> float | None:
    """Agents who cited a replaced proposition and know its replacement at their last census
    ÷ agents who cited it (the replacement's origins excluded).

    A tracked proposition Q retracts (or revises) P when Q's truth names P in `supersedes`.
    To cite P is to tell it to someone in one's own words (an utterance about P that is not a
    scenario's scripted line): whoever passed the claim on is who the retraction must reach.
    Knowing Q is being its knower (the true value at the last census after an exposure).
    Silence cites nothing, and cites no retraction either. Absent (None) when nothing
    replaced was cited.
    """
    later = [t for t in tracked_rows(episode) if t.supersedes is not None]
    if not later:
        return None
    require(episode, "utterances", UTTERANCES)
    speakers, props, scripted = columns(
        episode, "utterances", ("speaker", "proposition", "scripted")
    )
    cited: dict[Any, set[Any]] = {}  # replaced proposition → its citers
    for s, p, x in zip(speakers, props, scripted, strict=True):
        if s is not None and not x:
            cited.setdefault(p, set()).add(s)
    knowers = {(k.proposition, k.agent) for k in census_knowers_rows(episode)}
    pairs = {
        (newer.proposition, agent)
        for newer in later
        for agent in cited.get(newer.supersedes, ())
        if not eq(agent, newer.origin) and agent not in newer.origins
    }
    if not pairs:
        return None
    return sum(pair in knowers for pair in pairs) / len(pairs)


METRIC = register(
    Metric(
        name="retraction_reach",
        direction="max",
        range=(0.0, 1.0),
        definition="share of agents who passed on a replaced tracked proposition in their own "
        "utterances (the replacement's origin excluded) whose last census answer knows the "
        "replacement; absent with none",
        internal=False,
        fn=retraction_reach,
        reads=("exposures", "probes", "truth", "utterances"),
    )
)
