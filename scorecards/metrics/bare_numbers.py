"""`bare_numbers`: the agent's words never show a number (its emergency numbers aside)."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import BARE_NUMBER, agent_turns, emergency_numbers, lines


def bare_numbers(episode: Episode) -> float | None:
    """Digit runs in the agent's turns, not counting the persona's emergency numbers."""
    if not lines(episode):
        return None
    numbers = emergency_numbers(episode)
    found = 0
    for t in agent_turns(episode):
        allowed = numbers.get(t.agent, ())
        found += sum(n not in allowed for n in BARE_NUMBER.findall(str(t.text or "")))
    return float(found)


METRIC = register(
    Metric(
        name="bare_numbers",
        direction="min",
        range=(0.0, float("inf")),
        definition="count of numbers in digits in the agent's turns, its emergency numbers aside",
        internal=False,
        fn=bare_numbers,
        reads=("characters", "dialogue"),
    )
)
