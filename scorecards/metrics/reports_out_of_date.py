"""`reports_out_of_date`: a reading (weather, almanac) is given only as reported, while current."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, lines, readings, report_windows
from ._rows import eq


def reports_out_of_date(episode: Episode) -> float | None:
    """Agent turns giving a value of a reading the persona holds current for a while (the
    harness's `report_windows` rows: weather, 180 minutes) — other than the reply to a line that
    stated it — when the agent had read no report of it within that while (invented or
    stale), or gives another value than the latest report it read. Absent where no reading
    has a window, or none was asked about."""
    windows = report_windows(episode)
    if not windows:
        return None
    read = readings(episode)
    asked = lines(episode)
    stating = {d.line_id for d in asked if d.value is not None}
    turns = agent_turns(episode)
    faults, relevant = 0, False
    for w in windows:
        relevant |= any(eq(d.proposition, w.proposition) for d in asked)
        given = [
            t
            for t in turns
            if eq(t.agent, w.agent)
            and eq(t.proposition, w.proposition)
            and t.value is not None
            and t.line_id not in stating
        ]
        for t in given:
            seen = sorted(
                (
                    r
                    for r in read
                    if eq(r.agent, w.agent) and eq(r.proposition, w.proposition) and r.at <= t.at
                ),
                key=lambda r: (r.tick, r.event_id),
            )
            current = bool(seen) and t.at - int(seen[-1].at) <= w.minutes
            faults += not current or seen[-1].value != t.value
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
        reads=("characters", "dialogue", "exposures", "report_windows"),
    )
)
