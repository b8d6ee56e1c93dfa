"""`understatement_rate`: how often a certain fact is passed on or answered as a hedge."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import census_knowers_rows, tracked_rows
from ._rows import columns, eq, hedge, require
from ._tables import UTTERANCES


def understatement_rate(episode: Episode) -> float | None:
    """Statements of a certain tracked proposition's true value made as `likely` or `rumor`
    ÷ statements of a certain tracked proposition's true value.

    Statements: the agents' own utterances (a scenario's scripted lines are not anyone's)
    and the knowers' last census answers. The counterpart of `false_certainty_rate`: hedging
    everything costs here as hardening a rumor costs there. No such statement gives 0.0;
    absent (None) only when no tracked proposition is certain.
    """
    truth = {t.proposition: t for t in tracked_rows(episode) if not hedge(t.modality)}
    if not truth:
        return None
    require(episode, "utterances", UTTERANCES)
    fields = ("proposition", "value", "modality", "scripted")
    props, values, modalities, scripted = columns(episode, "utterances", fields)
    said = [
        hedge(modalities[i])
        for i, p in enumerate(props)
        if not scripted[i] and p in truth and eq(values[i], truth[p].value)
    ]
    answered = [hedge(k.answer_modality) for k in census_knowers_rows(episode) if k.proposition in truth]
    statements = said + answered
    if not statements:
        return 0.0
    return float(sum(statements)) / len(statements)


METRIC = register(
    Metric(
        name="understatement_rate",
        direction="min",
        range=(0.0, 1.0),
        definition="share of statements (own utterances, knowers' last census answers) giving "
        "a certain tracked proposition's true value as likely/rumor; 0 with no such statements",
        internal=False,
        fn=understatement_rate,
        reads=("exposures", "probes", "truth", "utterances"),
    )
)
