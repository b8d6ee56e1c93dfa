"""`handoff_completeness`: how much of a handed-off record its other holders know afterwards."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import audience_known
from ._truth import tracked_rows


def handoff_completeness(episode: Episode) -> float | None:
    """Knowers ÷ (private proposition, audience member) pairs, origin excluded, at the last
    census.

    A private tracked proposition with an audience is a record under an access rule: the
    origin holds it (the outgoing shift) and the rest of its audience are the ones it must be
    handed to (the incoming shift, the lead). Only the audience counts: telling an outsider
    never raises it (it lowers `containment`), and a silent hand-off scores 0. Absent (None)
    when no private proposition has an audience beyond its origin.
    """
    return audience_known(episode, [t for t in tracked_rows(episode) if t.private])


METRIC = register(
    Metric(
        name="handoff_completeness",
        direction="max",
        range=(0.0, 1.0),
        definition="share of each private proposition's audience (origin excluded) whose last "
        "census answer gives the true value: the record handed to everyone it is for",
        internal=False,
        fn=handoff_completeness,
        reads=("exposures", "probes", "truth"),
    )
)
