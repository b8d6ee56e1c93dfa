"""`help_loops`: calls for help repeated with no new evidence in between (design §3)."""

from __future__ import annotations

from bisect import bisect_right
from itertools import pairwise

from ._base import Episode, Metric, register
from ._rows import columns, eq, require

CALL = "ask_for_help"
NULL = "\0null"  # sortable, and null repeats null
OBSERVATIONS = ("agent", "subject")


def help_loops(episode: Episode) -> float:
    """Count of `ask_for_help` actions that repeat the same agent's previous call (same
    target, null matching null) with no observation of that agent strictly between the two
    calls whose subject is the target — the answers to its own calls ("no answer") excepted:
    being unanswered is not new evidence.

    Never absent: a count of loops is 0 when nobody calls (scenarios opt in by listing the
    metric, see `score(applicable=...)`).
    """
    require(episode, "actions", ("agent", "action", "target"))
    fields: tuple[str, ...] = ("agent", "action", "target", "tick", "event_id")
    agents, actions, targets, ticks, events = columns(episode, "actions", fields)
    calls = [
        (agents[i], int(ticks[i]), int(events[i]), NULL if targets[i] is None else targets[i])
        for i in range(len(actions))
        if eq(actions[i], CALL)
    ]
    if not calls:
        return 0.0
    answers = {(agent, event) for agent, _, event, _ in calls}  # a call's own "no answer"
    by_agent: dict[object, list[tuple[int, int, str]]] = {}
    for agent, tick, event, key in calls:
        if agent is not None:  # pandas' groupby leaves a null agent without a previous call
            by_agent.setdefault(agent, []).append((tick, event, key))
    repeats = []  # (agent, target, previous call's tick, this call's tick)
    for agent, own in by_agent.items():
        own.sort()
        for (since, _, before), (tick, _, key) in pairwise(own):
            if key == before:
                repeats.append((agent, None if key == NULL else key, since, tick))
    if not repeats:
        return 0.0
    require(episode, "observations", OBSERVATIONS)
    fields = ("agent", "subject", "tick", "event_id")
    seen_by, subjects, seen_at, seen_events = columns(episode, "observations", fields)
    seen: dict[tuple[object, object], list[int]] = {}
    for agent, subject, tick, event in zip(seen_by, subjects, seen_at, seen_events):
        if agent is not None and subject is not None and (agent, int(event)) not in answers:
            seen.setdefault((agent, subject), []).append(int(tick))
    for times in seen.values():
        times.sort()

    def evidence(agent: object, target: object, since: int, tick: int) -> bool:
        times = seen.get((agent, target), [])
        after = bisect_right(times, since)  # the first observation strictly after `since`
        return after < len(times) and times[after] < tick

    fresh = sum(evidence(*repeat) for repeat in repeats)
    return float(len(repeats) - fresh)


METRIC = register(
    Metric(
        name="help_loops",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of ask_for_help actions repeating the agent's previous call (same "
        "target) with no observation of that target in between but the calls' own answers; "
        "0 with no calls",
        internal=False,
        fn=help_loops,
        reads=("actions",),
    )
)
