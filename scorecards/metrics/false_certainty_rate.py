"""`false_certainty_rate`: how often talk hardens a hedge or a falsehood into certainty."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import Truth, first_hand_value_rows, tracked_rows
from ._independence import warranted
from ._rows import columns, eq, require
from ._tables import CERTAIN, UTTERANCES


def false_certainty_rate(episode: Episode) -> float | None:
    """Utterances stated `certain` that are uncertain or false ÷ utterances about tracked
    propositions (an agent's own: a scenario's scripted lines do not count).

    Uncertain: the truth's modality is `likely` or `rumor` - unless the speaker had seen the
    true value it states for itself by then (a first-hand exposure to it: the sign that says
    the bridge is open makes "it is open" certain for whoever read it). False: a stated value
    (not null) differs from the true value. Absent (None) when nothing is tracked or nothing
    about it was said: a rate of hardening over no statements is no accuracy (silence is
    scored by reach and provenance, and must not score best here).
    """
    truth = {t.proposition: t for t in tracked_rows(episode)}
    if not truth:
        return None
    require(episode, "utterances", UTTERANCES)
    fields = ("speaker", "proposition", "value", "modality", "scripted", "tick")
    speakers, props, values, modalities, scripted, ticks = columns(episode, "utterances", fields)
    about = [(i, truth[p]) for i, p in enumerate(props) if not scripted[i] and p in truth]
    if not about:
        return None
    seen = first_hand_value_rows(episode)

    def hardened(i: int, t: Truth) -> bool:
        if not eq(modalities[i], CERTAIN):
            return False
        # the value is false (a value that changes: none it has held by then; saying an old
        # one is out of date, which supersession scores)
        if values[i] is not None and values[i] not in t.held_by(int(ticks[i])):
            return True
        # several origins: what the speaker's own sources warrant (two independent ones do)
        expected = warranted(episode, t, speakers[i], int(ticks[i])) or t.modality
        if expected is None or eq(expected, CERTAIN):
            return False
        saw = seen.get((speakers[i], t.proposition, values[i]))
        return saw is None or saw > ticks[i]  # a hedge hardened, unless seen for itself

    return float(sum(hardened(i, t) for i, t in about)) / len(about)


METRIC = register(
    Metric(
        name="false_certainty_rate",
        direction="min",
        range=(0.0, 1.0),
        definition="share of utterances about tracked propositions stated certain while the "
        "stated value is false, or the truth is likely/rumor and the speaker had neither seen "
        "that value first-hand nor been reached by two independent origins; absent with no "
        "such utterances",
        internal=False,
        fn=false_certainty_rate,
        reads=("exposures", "truth", "utterances"),
    )
)
