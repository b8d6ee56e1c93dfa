"""`style_violations`: six hard rules of how a character speaks, per 100 of its turns."""

from __future__ import annotations

import re

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, replies

MAX_WORDS = 60
RULES = {
    "list": re.compile(r"(^|\n)\s*(?:[-*•]|\d+[.)])\s"),
    "assistant": re.compile(r"\b(as an ai|language model|assistant)\b", re.IGNORECASE),
    "setup": re.compile(r"\b(my persona|as a character|my programming|my prompt)\b", re.IGNORECASE),
    "sweet": re.compile(
        r"you're (amazing|the best)|always here for you no matter what", re.IGNORECASE
    ),
}


def breaks(text: str) -> bool:
    return (
        any(rule.search(text) for rule in RULES.values())
        or len(text.split()) > MAX_WORDS
        or text.count("?") > 2
    )


def style_violations(episode: Episode) -> float | None:
    """Agent turns that break a hard rule (a list, calling itself an assistant, explaining its
    setup, stock sweetness, over 60 words, over two questions), and lines left unanswered,
    per 100 of turns and unanswered lines. Silence is no style: a line with no reply counts
    as a broken turn, so a character that answers nothing scores the worst, never the best.
    Absent only when nothing was said to the agent."""
    said = replies(episode)
    if not said:
        return None
    turns = agent_turns(episode)
    unanswered = sum(line.reply is None for line in said)
    broken = sum(breaks(str(t.text or "")) for t in turns) + unanswered
    return 100.0 * broken / (len(turns) + unanswered)


METRIC = register(
    Metric(
        name="style_violations",
        direction="min",
        range=(0.0, 100.0),
        definition="agent turns breaking a hard style rule (list, assistant, setup, stock "
        "sweetness, over 60 words, over two questions), and lines left unanswered, per 100 "
        "turns and unanswered lines",
        internal=False,
        fn=style_violations,
        reads=("dialogue",),
    )
)
