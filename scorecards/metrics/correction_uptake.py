"""`correction_uptake`: after a correction, the corrected fact is used, not the old one."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, lines
from ._tables import PROBES, flag, table

STATEMENTS = ("fact", "preference", "correction")


def correction_uptake(episode: Episode) -> float | None:
    """Per correction line: the share of the agent's later uses of that proposition — its
    turns with a value (other than the reply to the correction itself) and probe answers —
    that give the corrected value, until the speaker states it anew; no use at all counts 0
    (forgotten is not taken up). Mean over corrections."""
    said = lines(episode)
    fixes = said[said["kind"].eq("correction")]
    if fixes.empty:
        return None
    turns = agent_turns(episode)
    probes = table(episode, "probes", PROBES)
    scores = []
    for c in fixes.itertuples():
        later = said[
            said["agent"].eq(c.agent)
            & said["proposition"].eq(c.proposition)
            & said["kind"].isin(STATEMENTS)
            & said["tick"].gt(c.tick)
        ]
        until = int(later["tick"].min()) if not later.empty else None
        used = turns[
            turns["agent"].eq(c.agent)
            & turns["proposition"].eq(c.proposition)
            & turns["value"].notna()
            & turns["tick"].ge(c.tick)
            & ~flag(turns["line_id"].eq(c.line_id))
            & (turns["tick"].lt(until) if until is not None else True)
        ]["value"].tolist()
        answered = probes[
            probes["agent"].eq(c.agent)
            & probes["proposition"].eq(c.proposition)
            & probes["tick"].ge(c.tick)
        ]
        if until is not None:
            answered = answered[answered["tick"].lt(until)]
        used += answered["answer_value"].tolist()
        right = sum(isinstance(v, str) and v == c.value for v in used)
        scores.append(right / len(used) if used else 0.0)
    return sum(scores) / len(scores)


METRIC = register(
    Metric(
        name="correction_uptake",
        direction="max",
        range=(0.0, 1.0),
        definition="share of the agent's later uses of a corrected fact (turns, probe answers) "
        "that give the corrected value; no use counts 0; mean over corrections",
        internal=False,
        fn=correction_uptake,
    )
)
