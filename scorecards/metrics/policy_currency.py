"""`policy_currency`: a support agent gives the current policy and says what it replaced."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, lines
from ._rows import columns, eq, require
from ._tables import EXPOSURES
from ._words import says


def policy_currency(episode: Episode) -> float | None:
    """Questions about a proposition the agent had been notified of (exposures from no
    speaker: notices) answered with the latest notified value — and, when an earlier notice
    gave another value, naming that value too (what the current one replaced) ÷ such
    questions."""
    asked = [q for q in lines(episode) if q.kind == "question"]
    require(episode, "exposures", EXPOSURES)
    exposures = ("agent", "proposition", "tick", "event_id", "value", "from_agent")
    notices = [
        n for n in zip(*columns(episode, "exposures", exposures), strict=True) if n[5] is None
    ]
    turns = agent_turns(episode)
    scores = []
    for q in asked:
        known = sorted(
            (
                (tick, eid, value)
                for agent, proposition, tick, eid, value, _ in notices
                if eq(agent, q.agent) and eq(proposition, q.proposition) and tick <= q.tick
            ),
            key=lambda n: (n[0], n[1]),
        )
        if not known:
            continue
        current = known[-1][2]
        replaced = [v for _, _, v in known if v != current]
        reply = [t for t in turns if eq(t.line_id, q.line_id) and eq(t.proposition, q.proposition)]
        # the latest value as the reply's tag and in its words, and what it replaced named
        ok = bool(reply) and reply[0].value == current and says(reply[0].text, current)
        if ok and replaced:
            ok = says(reply[0].text, replaced[-1])
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
        "(in the reply's words as in its tag) and, if it superseded another, naming the one it "
        "replaced",
        internal=False,
        fn=policy_currency,
        reads=("dialogue", "exposures"),
    )
)
