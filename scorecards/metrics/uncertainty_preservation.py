"""`uncertainty_preservation`: how much of the audience knows an uncertain matter as surely as
its evidence allows, and no surer."""

from __future__ import annotations

from harness.engine.kinds import Modality

from ._base import Episode, Metric, register
from ._census_rows import audience_pairs, census_knowers_rows, last_census_rows, last_census_tick
from ._justified import Verdict, justified
from ._rows import columns, hedge
from ._truth import tracked_rows


def uncertainty_preservation(episode: Episode) -> float | None:
    """Audience members of an uncertain proposition who know it with a modality inside the
    band their evidence allows ÷ that audience (origins excluded, and those who saw it
    themselves).

    Uncertain: the truth's modality is `likely` or `rumor` (with several origins: any
    origin's). The band (`_justified`): told a rumor, a rumor; told likely, likely or rumor;
    two independent origins, anything from a hedge to certain. An agent who saw the true
    value itself has nothing uncertain to keep and is not counted; one who heard it both ways
    keeps it with either side held open (rumor or likely); one who does not know it (a wrong
    value, "I don't know", a guess) keeps nothing. Coverage and fidelity together:
    "might" kept by a few is not "might" kept, and silence keeps nothing. Absent (None) only
    when no uncertain tracked proposition has an audience beyond its origins and its
    witnesses.
    """
    uncertain = {
        t.proposition: t
        for t in tracked_rows(episode)
        if hedge(t.modality) or any(map(hedge, t.origin_modalities))
    }
    knowers = {
        (k.proposition, k.agent): k
        for k in census_knowers_rows(episode)
        if k.proposition in uncertain
    }
    last = last_census_rows(episode)
    said, how, when = columns(episode, "probes", ("answer_value", "answer_modality", "tick"))
    end = last_census_tick(episode)
    kept = []
    for prop, agent in audience_pairs(list(uncertain.values())):
        row = last.get((agent, prop))
        tick = end if row is None else int(when[row])
        value, j = uncertain[prop].value_at(tick), justified(episode, agent, prop, tick)
        band = j.band(value)
        if band is not None and band.weakest is Modality.CERTAIN:
            continue  # it saw for itself: certain is right, and nothing was uncertain to it
        if j.contested:  # heard both ways: either side, held open, keeps it uncertain
            kept.append(row is not None and j.judge(said[row], how[row]) is Verdict.WITHIN)
            continue
        k = knowers.get((prop, agent))
        kept.append(k is not None and j.judge(value, k.answer_modality) is Verdict.WITHIN)
    if not kept:
        return None
    return sum(kept) / len(kept)


METRIC = register(
    Metric(
        name="uncertainty_preservation",
        direction="max",
        range=(0.0, 1.0),
        definition="share of each uncertain (likely/rumor) tracked proposition's audience "
        "(origins and first-hand witnesses excluded) whose last census answer gives the true "
        "value with a modality inside the band its evidence allows (told a rumor: rumor; two "
        "independent origins: up to certain)",
        internal=False,
        fn=uncertainty_preservation,
        reads=("exposures", "probes", "truth"),
    )
)
