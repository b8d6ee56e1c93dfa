"""`false_certainty_rate`: how often talk states a claim surer than the speaker's evidence."""

from __future__ import annotations

from typing import Any

from harness.engine.kinds import Modality

from ._base import Episode, Metric, register
from ._census_rows import last_census_rows
from ._claims import DistinctClaims, echo
from ._justified import Justified, Verdict, justified, sureness
from ._rows import columns, require
from ._tables import ANSWERED, UTTERANCES
from ._truth import tracked_rows


def false_certainty_rate(episode: Episode) -> float | None:
    """Distinct claims (speaker, proposition, value) stated surer than the speaker may rightly
    hold ÷ distinct claims about tracked propositions (`_claims`: at least two, an echo back
    to the informant not one). Statements: an agent's own utterances (a scenario's scripted
    lines are nobody's) and its last census answers, as in `understatement_rate`.

    What it may hold (`_justified`): what it saw, as seen; what it was told, no surer than
    told (a rumor passed on as likely, or likely as certain, hardens it); two independent
    origins, up to certain; two values contesting each other, no surer than likely. Stating
    certain a value none of its exposures support (a guess, or one contradicted by what it
    saw) hardens too. A claim is hardened if any statement of it was. Absent (None) when
    nothing is tracked or fewer than two claims about it were made: a rate over no
    statements is no accuracy (silence is scored by reach and provenance), and over one it
    is no evidence.
    """
    tracked = {t.proposition for t in tracked_rows(episode)}
    if not tracked:
        return None
    require(episode, "utterances", UTTERANCES)
    fields = ("speaker", "listener", "proposition", "value", "modality", "scripted", "tick")
    speakers, listeners, props, values, modalities, scripted, ticks = columns(
        episode, "utterances", fields
    )
    events = columns(episode, "utterances", ("event_id",))[0]
    claims = DistinctClaims()

    def state(agent: Any, prop: Any, value: Any, modality: Any, j: Justified) -> None:
        verdict = j.judge(value, modality)
        # surer than its evidence allows (a rumor passed on as likely hardens it too), or
        # certain of a value nothing warranted (a guess, or against what it saw)
        hardened = verdict is Verdict.HARDENED or (
            verdict is Verdict.UNWARRANTED and sureness(modality) == sureness(Modality.CERTAIN)
        )
        claims.add((agent, prop, value), hardened)

    for i, p in enumerate(props):
        if scripted[i] or p not in tracked or speakers[i] is None:
            continue
        at = (int(ticks[i]), int(events[i]))
        if echo(episode, speakers[i], listeners[i], p, values[i], at):
            continue  # told back to whoever told it: passes nothing on
        # what reached it before it spoke
        state(speakers[i], p, values[i], modalities[i], justified(episode, speakers[i], p, *at))
    require(episode, "probes", ANSWERED)
    when, said, how = columns(episode, "probes", ("tick", "answer_value", "answer_modality"))
    for (agent, p), i in sorted(last_census_rows(episode).items(), key=lambda kv: str(kv[0])):
        if p in tracked and said[i] is not None:
            state(agent, p, said[i], how[i], justified(episode, agent, p, int(when[i])))
    return claims.rate()


METRIC = register(
    Metric(
        name="false_certainty_rate",
        direction="min",
        range=(0.0, 1.0),
        definition="share of distinct claims (own utterances, last census answers) about "
        "tracked propositions stated surer than the speaker's evidence allows (told a rumor, said "
        "likely or certain; a value nothing warranted, said certain); absent with fewer than "
        "two claims",
        internal=False,
        fn=false_certainty_rate,
        reads=("exposures", "probes", "truth", "utterances"),
    )
)
