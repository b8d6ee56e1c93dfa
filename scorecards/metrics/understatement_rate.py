"""`understatement_rate`: how often a claim is passed on or answered weaker than the agent's
evidence allows."""

from __future__ import annotations

from typing import Any

from harness.engine.kinds import Modality

from ._base import Episode, Metric, register
from ._census_rows import last_census_rows
from ._claims import DistinctClaims, echo
from ._justified import Verdict, justified
from ._rows import columns, require
from ._tables import ANSWERED, UTTERANCES
from ._truth import Truth, tracked_rows


def understatement_rate(episode: Episode) -> float | None:
    """Distinct claims (agent, proposition, value) of a true value stated weaker than the
    agent's evidence allows ÷ distinct such claims whose evidence allows no hedge of hearsay
    (`_claims`: at least two, an echo back to the informant not one).

    Statements: the agents' own utterances (a scenario's scripted lines are not anyone's) and
    their last census answers. What the evidence allows (`_justified`): what it saw itself,
    as it saw it (a plain sight: certain); what it was told, one step below as told (a fact
    told certain may be passed on as likely, never as a rumor); two independent origins,
    whatever it was told. Only claims whose evidence sets a floor above `rumor` can be
    understated, and only a true value it may hold counts. The counterpart of
    `false_certainty_rate`: hedging everything costs here as hardening a rumor costs there.
    Absent (None) when fewer than two such claims were stated (silence is no accuracy, and
    one claim no evidence).
    """
    truth = {t.proposition: t for t in tracked_rows(episode)}
    if not truth:
        return None
    claims = DistinctClaims()

    def state(
        agent: Any, t: Truth, tick: int, value: Any, modality: Any, event: int | None = None
    ) -> None:
        j = justified(episode, agent, t.proposition, tick, event)
        band = j.band(value)
        if (
            agent is None
            or t.started_with(agent)
            or j.replaced_by is not None
            or value != t.value_at(tick)
            or band is None
            or band.weakest is Modality.RUMOR
        ):
            return
        claims.add((agent, t.proposition, value), band.judge(modality) is Verdict.UNDERSTATED)

    require(episode, "utterances", UTTERANCES)
    fields = ("speaker", "listener", "proposition", "value", "modality", "scripted", "tick")
    speakers, listeners, props, values, modalities, scripted, ticks = columns(
        episode, "utterances", fields
    )
    events = columns(episode, "utterances", ("event_id",))[0]
    for i, p in enumerate(props):
        at = (int(ticks[i]), int(events[i]))
        said_back = echo(episode, speakers[i], listeners[i], p, values[i], at)
        if not scripted[i] and p in truth and not said_back:
            state(speakers[i], truth[p], at[0], values[i], modalities[i], at[1])
    require(episode, "probes", ANSWERED)
    when, said, how = columns(episode, "probes", ("tick", "answer_value", "answer_modality"))
    for (agent, p), i in sorted(last_census_rows(episode).items(), key=lambda kv: str(kv[0])):
        if p in truth:
            state(agent, truth[p], int(when[i]), said[i], how[i])
    return claims.rate()


METRIC = register(
    Metric(
        name="understatement_rate",
        direction="min",
        range=(0.0, 1.0),
        definition="share of distinct claims (own utterances, last census answers) of a true, "
        "warranted value whose evidence allows no hedge of hearsay (seen itself, told "
        "certain) stated weaker than it allows; absent with fewer than two claims",
        internal=False,
        fn=understatement_rate,
        reads=("exposures", "probes", "truth", "utterances"),
    )
)
