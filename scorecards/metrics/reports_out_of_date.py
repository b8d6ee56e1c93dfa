"""`reports_out_of_date`: a reading (weather, almanac) is given only as reported, while current."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, clock, dialogue, lines
from ._tables import EXPOSURES, table


def reports_out_of_date(episode: Episode) -> float | None:
    """Agent turns giving a value of a reading the persona holds current for a while (the
    harness's `report` rows: weather, 180 minutes) — other than the reply to a line that
    stated it — when the agent had read no report of it within that while (invented or
    stale), or gives another value than the latest report it read. Absent where no reading
    has a window, or none was asked about."""
    d = dialogue(episode)
    windows = d[d["turn"].eq("report")]
    if windows.empty:
        return None
    start, per_tick = clock(episode)
    read = table(episode, "exposures", EXPOSURES)
    read = read[read["channel"].eq("read")].assign(at=lambda x: start + x["tick"] * per_tick)
    stating = set(lines(episode).dropna(subset=["value"])["line_id"])
    turns = agent_turns(episode)
    asked = lines(episode)
    faults, relevant = 0, False
    for w in windows.itertuples():
        relevant |= bool(asked["proposition"].eq(w.proposition).any())
        given = turns[
            turns["agent"].eq(w.agent)
            & turns["proposition"].eq(w.proposition)
            & turns["value"].notna()
            & ~turns["line_id"].isin(stating)
        ]
        for t in given.itertuples():
            seen = read[
                read["agent"].eq(w.agent)
                & read["proposition"].eq(w.proposition)
                & read["at"].le(t.at)
            ].sort_values(["tick", "event_id"])
            current = not seen.empty and t.at - int(seen["at"].iloc[-1]) <= int(w.gap)
            faults += not current or seen["value"].iloc[-1] != t.value
    return float(faults) if relevant else None


METRIC = register(
    Metric(
        name="reports_out_of_date",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of turns giving a reading (the weather) with no report read within "
        "the persona's window, or other than the latest report",
        internal=False,
        fn=reports_out_of_date,
    )
)
