"""`provenance_origin`: how much of the audience knows where what it knows started."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import audience_pairs, census_knowers_rows, origin_reached, vouched
from ._rows import eq
from ._truth import tracked_rows


def provenance_origin(episode: Episode) -> float | None:
    """Audience members who know and name the true origin ÷ audience (origin excluded), over
    tracked propositions that have an origin.

    The origin is credited only when its name reached the agent with the proposition (the
    informant of a claim it heard, or the source that claim stated): naming the right
    villager by guess earns nothing. `self` is a fair origin after a first-hand exposure (an
    agent who saw the barrier itself). Hearsay passed on without its origin loses it: an
    agent told by Bo what Ana saw must say Ana, and can only if Bo said so. Absent (None)
    when no tracked proposition with an origin has an audience beyond it.
    """
    with_origin = [t for t in tracked_rows(episode) if t.origins]
    pairs = audience_pairs(with_origin)
    if not pairs:
        return None
    named = {
        (k.proposition, k.agent)
        for k in census_knowers_rows(episode)
        # any of several origins is a right origin, its name having reached the agent
        if any(
            eq(k.answer_origin, o) and origin_reached(episode, k.agent, k.proposition, o, k.tick)
            for o in k.origins
        )
        or (
            eq(k.answer_origin, "self") and vouched(episode, k.agent, k.proposition, "self", k.tick)
        )
    }
    return sum(pair in named for pair in pairs) / len(pairs)


METRIC = register(
    Metric(
        name="provenance_origin",
        direction="max",
        range=(0.0, 1.0),
        definition="share of each tracked proposition's audience (origins excluded) whose last "
        "census answer gives the true value and names a true origin (any of several), its name "
        "having reached the agent with the proposition (or self after a first-hand exposure)",
        internal=False,
        fn=provenance_origin,
        reads=("exposures", "probes", "truth", "utterances"),
    )
)
