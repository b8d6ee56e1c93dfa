"""`understatement_rate`: how often a certain fact is passed on or answered weaker than the
agent's evidence allows."""

from __future__ import annotations

from typing import Any

from ._base import Episode, Metric, register
from ._census_rows import Truth, census_knowers_rows, first_hand_value_rows, tracked_rows
from ._independence import warranted
from ._rows import columns, eq, hedge, require
from ._tables import UTTERANCES

LIKELY, RUMOR = "likely", "rumor"


def understatement_rate(episode: Episode) -> float | None:
    """Statements of a certain tracked proposition's true value made weaker than the agent's
    evidence allows ÷ statements of a certain tracked proposition's true value.

    Statements: the agents' own utterances (a scenario's scripted lines are not anyone's) and
    the knowers' last census answers. What the evidence allows: hearsay may lose one step
    (`likely`: the agent was not there), never two (`rumor` understates a certain fact
    whoever says it); after perceiving the true value itself (seen, heard, read) by then,
    anything short of `certain` understates. The counterpart of `false_certainty_rate`:
    hedging everything costs here as hardening a rumor costs there. A likely/rumor
    proposition with several origins counts as certain for statements by an agent two
    independent origins reached by then (`_independence`). Absent (None) when no
    tracked proposition is certain or nobody stated one (silence is no accuracy).
    """
    tracked = tracked_rows(episode)
    several = {t.proposition: t for t in tracked if len(t.origin_ticks) > 1}
    truth = {
        t.proposition: t for t in tracked if not hedge(t.modality) and t.proposition not in several
    }
    if not truth and not several:
        return None

    def judged(agent: Any, prop: Any, tick: int) -> Truth | None:
        """The truth a statement is judged by when it is certain for this agent: a certain
        one, or one with several origins whose sources warrant certainty to it."""
        if prop in truth:
            return truth[prop]
        t = several.get(prop)
        if t is None or hedge(warranted(episode, t, agent, tick) or t.modality):
            return None
        return t

    require(episode, "utterances", UTTERANCES)
    fields = ("speaker", "proposition", "value", "modality", "scripted", "tick")
    speakers, props, values, modalities, scripted, ticks = columns(episode, "utterances", fields)
    saw = first_hand_value_rows(episode)  # the true value perceived for itself, when
    statements = [
        _understated(modalities[i], saw.get((speakers[i], p, values[i])), int(ticks[i]))
        for i, p in enumerate(props)
        if not scripted[i]
        and (t := judged(speakers[i], p, int(ticks[i]))) is not None
        and eq(values[i], t.value_at(int(ticks[i])))
    ]
    statements += [
        _understated(
            k.answer_modality, saw.get((k.agent, k.proposition, t.value_at(k.tick))), k.tick
        )
        for k in census_knowers_rows(episode)
        if (t := judged(k.agent, k.proposition, k.tick)) is not None
    ]
    if not statements:
        return None
    return float(sum(statements)) / len(statements)


def _understated(modality: Any, first_hand: int | None, tick: int) -> bool:
    if eq(modality, RUMOR):
        return True
    return eq(modality, LIKELY) and first_hand is not None and first_hand <= tick


METRIC = register(
    Metric(
        name="understatement_rate",
        direction="min",
        range=(0.0, 1.0),
        definition="share of statements (own utterances, knowers' last census answers) giving "
        "a certain tracked proposition's true value (or one two independent origins reached "
        "the speaker with) as rumor, or as likely after a first-hand exposure; absent with no "
        "such statements",
        internal=False,
        fn=understatement_rate,
        reads=("exposures", "probes", "truth", "utterances"),
    )
)
