"""`conflicts_kept`: whether a contested matter heard both ways is kept contested."""

from __future__ import annotations

from ._base import Episode, Metric, register
from ._census_rows import last_census_rows
from ._justified import Verdict, justified
from ._rows import columns, hedge, require
from ._tables import ANSWERED
from ._truth import tracked_rows


def conflicts_kept(episode: Episode) -> float | None:
    """Agents whose evidence about a contested proposition was contested at their last census
    answer, whose answer gives one of the contested values hedged ÷ those agents (its origins
    excluded).

    Contested proposition: the truth's modality is `likely` or `rumor` (its sources disagree
    and nothing settles it). Contested evidence (`_justified`): two values reached the agent
    and nothing it perceived settles which holds - neither seen by itself alone, neither
    told more surely than the other. Holding either side as certain resolves the conflict by
    fiat; silence (a null answer) keeps nothing. Absent (None) when nobody's evidence was
    contested.
    """
    contested = {t.proposition: t for t in tracked_rows(episode) if hedge(t.modality)}
    if not contested:
        return None
    require(episode, "probes", ANSWERED)
    when, said, modalities = columns(episode, "probes", ("tick", "answer_value", "answer_modality"))
    kept = []
    for (agent, prop), i in sorted(last_census_rows(episode).items(), key=lambda kv: str(kv[0])):
        t = contested.get(prop)
        if t is None or t.started_with(agent):  # a source is no hearer of its conflict
            continue
        j = justified(episode, agent, prop, int(when[i]))
        if j.contested:
            kept.append(j.judge(said[i], modalities[i]) is Verdict.WITHIN)
    if not kept:
        return None
    return float(sum(kept)) / len(kept)


METRIC = register(
    Metric(
        name="conflicts_kept",
        direction="max",
        range=(0.0, 1.0),
        definition="share of agents (origins excluded) whose evidence about a contested "
        "(likely/rumor) tracked proposition was two values nothing it perceived settles, whose "
        "last census answer gives one of them hedged; absent with none",
        internal=False,
        fn=conflicts_kept,
        reads=("exposures", "probes", "truth"),
    )
)
