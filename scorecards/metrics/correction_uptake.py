"""`correction_uptake`: after a correction, the corrected fact is used, not the old one."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._dialogue import agent_turns, lines, restated
from ._rows import columns, eq, require
from ._tables import PROBES
from ._words import says


def correction_uptake(episode: Episode) -> float | None:
    """Per correction line: the share of the agent's later uses of that proposition — its
    turns with a value (other than the reply to the correction itself) and probe answers —
    that give the corrected value, until the speaker states it anew; no use at all counts 0
    (forgotten is not taken up). A turn gives it when its value does and its words say it
    too (`_words.says`): a turn tagged with the right value that says "Okay." gives nothing. Mean over
    corrections."""
    said = lines(episode)
    fixes = [c for c in said if c.kind == "correction"]
    if not fixes:
        return None
    turns = agent_turns(episode)
    require(episode, "probes", PROBES)
    probes = list(
        zip(
            *columns(episode, "probes", ("agent", "proposition", "tick", "answer_value")),
            strict=True,
        )
    )
    scores = []
    for c in fixes:
        until = restated(said, c)
        # a turn is a use by its tag, and right only if the tag gives the corrected value and
        # its words say it: what the person hears is the words, not the tag
        heard = [
            t.value == c.value and says(t.text, c.value)
            for t in turns
            if eq(t.agent, c.agent)
            and eq(t.proposition, c.proposition)
            and t.value is not None
            and t.tick >= c.tick
            and not eq(t.line_id, c.line_id)
            and (until is None or t.tick < until)
        ]
        heard += [
            isinstance(value, str) and value == c.value
            for agent, proposition, tick, value in probes
            if eq(agent, c.agent)
            and eq(proposition, c.proposition)
            and tick >= c.tick
            and (until is None or tick < until)
        ]
        scores.append(sum(heard) / len(heard) if heard else 0.0)
    return sum(scores) / len(scores)


METRIC = register(
    Metric(
        name="correction_uptake",
        direction="max",
        range=(0.0, 1.0),
        definition="share of the agent's later uses of a corrected fact (turns, in their "
        "words; probe answers) that give the corrected value; no use counts 0; mean over "
        "corrections",
        internal=False,
        fn=correction_uptake,
        reads=("dialogue", "probes"),
    )
)
