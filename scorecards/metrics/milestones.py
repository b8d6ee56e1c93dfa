"""`milestones`: how far the painting project got (DESIGN §3, the room ecology)."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._tables import flag, table

STAGES = ("sketch", "body", "finish", "display")  # the stages past 'preparation'


def milestones(episode: Episode) -> float | None:
    """Distinct painting stages past preparation reached (events of kind `milestone`, the
    stage in `detail`): 0 to 4.

    Absent (None) when the episode has no painting project: no milestone event and no
    `paint` action.
    """
    events = table(episode, "events", ("kind", "detail"))
    reached = events[flag(events["kind"].eq("milestone"))]
    if reached.empty:
        actions = table(episode, "actions", ("action",))
        if not flag(actions["action"].eq("paint")).any():
            return None
    return float(reached.loc[flag(reached["detail"].isin(STAGES)), "detail"].nunique())


METRIC = register(
    Metric(
        name="milestones",
        direction="max",
        range=(0.0, 4.0),
        definition="distinct painting stages past preparation (sketch, body, finish, display) "
        "reached, from milestone events; absent without a painting project",
        internal=False,
        fn=milestones,
    )
)
