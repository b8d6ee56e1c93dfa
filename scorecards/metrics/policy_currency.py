"""`policy_currency`: a support agent gives the current policy and says what it replaced."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, lines
from ._tables import EXPOSURES, table


def policy_currency(episode: Episode) -> float | None:
    """Questions about a proposition the agent had been notified of (exposures from no
    speaker: notices) answered with the latest notified value — and, when an earlier notice
    gave another value, naming that value too (what the current one replaced) ÷ such
    questions."""
    asked = lines(episode)
    asked = asked[asked["kind"].eq("question")]
    notices = table(episode, "exposures", EXPOSURES)
    notices = notices[notices["from_agent"].isna()]
    turns = agent_turns(episode)
    scores = []
    for q in asked.itertuples():
        known = notices[
            notices["agent"].eq(q.agent)
            & notices["proposition"].eq(q.proposition)
            & notices["tick"].le(q.tick)
        ].sort_values(["tick", "event_id"])
        if known.empty:
            continue
        current = known["value"].iloc[-1]
        replaced = [v for v in known["value"] if v != current]
        reply = turns[turns["line_id"].eq(q.line_id) & turns["proposition"].eq(q.proposition)]
        ok = not reply.empty and reply["value"].iloc[0] == current
        if ok and replaced:
            ok = replaced[-1] in str(reply["text"].iloc[0])
        scores.append(ok)
    if not scores:
        return None
    return sum(scores) / len(scores)


METRIC = register(
    Metric(
        name="policy_currency",
        direction="max",
        range=(0.0, 1.0),
        definition="share of questions about a notified policy answered with the latest value "
        "and, if it superseded another, naming the one it replaced",
        internal=False,
        fn=policy_currency,
    )
)
