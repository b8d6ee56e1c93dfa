"""`conflicts_kept`: whether a contested matter heard both ways is kept contested."""

from __future__ import annotations

from typing import Any

from ._base import Episode, Metric, register
from ._census_rows import last_census_rows, tracked_rows
from ._rows import columns, eq, hedge, require
from ._tables import ANSWERED, EXPOSURES


def conflicts_kept(episode: Episode) -> float | None:
    """Agents exposed to two different values of a contested proposition by their last census
    answer, whose answer gives one of those values hedged ÷ those agents (its origins excluded).

    Contested: the truth's modality is `likely` or `rumor` (its sources disagree and nothing
    settles it). Exposed to a value: any exposure (read, seen, heard, told) giving that value.
    Holding either side as certain resolves the conflict by fiat; silence (a null answer)
    keeps nothing. Absent (None) when nobody heard a contested proposition both ways.
    """
    contested = {t.proposition: t for t in tracked_rows(episode) if hedge(t.modality)}
    if not contested:
        return None
    require(episode, "exposures", EXPOSURES)
    require(episode, "probes", ANSWERED)
    fields = ("agent", "proposition", "value", "tick")
    agents, props, values, ticks = columns(episode, "exposures", fields)
    heard: dict[tuple[Any, Any], dict[Any, int]] = {}  # (agent, proposition) → value → tick
    for a, p, v, t in zip(agents, props, values, ticks, strict=True):
        if p in contested and a is not None and v is not None:
            first = heard.setdefault((a, p), {})
            first[v] = min(int(t), first.get(v, int(t)))
    when, said, modalities = columns(episode, "probes", ("tick", "answer_value", "answer_modality"))
    last = {key: i for key, i in last_census_rows(episode).items() if key[1] in contested}
    kept = []
    for key, i in sorted(last.items(), key=lambda kv: str(kv[0])):
        agent, prop = key
        t, tick = contested[prop], int(when[i])
        if eq(agent, t.origin) or agent in t.origins:  # a source is no hearer of its conflict
            continue
        values_by = {v for v, t in heard.get(key, {}).items() if t <= tick}
        if len(values_by) < 2:
            continue
        kept.append(said[i] in values_by and hedge(modalities[i]))
    if not kept:
        return None
    return float(sum(kept)) / len(kept)


METRIC = register(
    Metric(
        name="conflicts_kept",
        direction="max",
        range=(0.0, 1.0),
        definition="share of agents (origin excluded) exposed to two different values of a "
        "contested (likely/rumor) tracked proposition whose last census answer gives one of "
        "them hedged (likely/rumor); absent with none",
        internal=False,
        fn=conflicts_kept,
        reads=("exposures", "probes", "truth"),
    )
)
