"""What an agent may rightly hold: the one standard every metric judges an answer by.

From the harness's own record of what reached an agent about a tracked proposition (its
exposures: channel, informant, stated modality and value, and when), `justified` derives, for
an (agent, proposition, tick), the values the agent may rightly give and, for each, the band of
modalities that neither hardens nor understates its evidence:

| what reached it | the value | the band (weakest .. surest) |
|---|---|---|
| nothing | none: any value is a guess | - |
| nothing, and it is the truth's origin (its own decision: a request's `about`) | the true value | as at the origin |
| seen, heard or read itself | what it perceived | as perceived (a plain sight: certain) |
| told, `m` | what it was told | one step below `m` (a hedge of hearsay) .. `m` |
| told twice along chains from one origin | as told once | as told once |
| two independent origins (`origins`) | the value | likely .. certain |
| one value seen, another only told | the one seen | as seen |
| two values seen at different times | the one seen last | as seen |
| two values, neither newer nor seen | either (contested) | rumor .. likely |
| successive values | the newest it heard of | that value's own band |
| a replacement or a retraction (`supersedes`) | the old one no longer holds | - |

An agent's answer about a replaced proposition has moved on when it names the replacement
(`replaced_by`) or says the old one no longer holds ("false"). Metrics judge a statement with
`Justified.judge` and never compare with the truth's own modality: the origin's modality is
what the origin may say, not what every hearer may.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from harness.engine.kinds import Channel, Modality

from ._base import Episode, derived
from ._independence import independently_reached
from ._rows import columns, require
from ._tables import EXPOSURES
from ._truth import Truth, tracked_rows

SURENESS = (Modality.RUMOR, Modality.LIKELY, Modality.CERTAIN)  # least sure first
FIRST_HAND = frozenset({Channel.SEEN, Channel.HEARD, Channel.READ})
NO_LONGER = "false"  # the answer that a replaced or retracted proposition no longer holds


class Verdict(StrEnum):
    """How a stated modality stands to the band its agent's evidence allows."""

    WITHIN = "within"
    HARDENED = "hardened"  # surer than the evidence allows
    UNDERSTATED = "understated"  # less sure than the evidence allows
    UNWARRANTED = "unwarranted"  # a value nothing reached the agent for (a guess)


def sureness(modality: Any) -> int:
    """0 (rumor) .. 2 (certain). A statement with no qualifier says that it is so: a missing
    modality counts as certain, in what an agent heard as in what it says."""
    try:
        return SURENESS.index(Modality(modality))
    except ValueError:
        return SURENESS.index(Modality.CERTAIN)


@dataclass(frozen=True)
class Band:
    """The modalities an agent may rightly give a value: from `weakest` to `surest`."""

    weakest: Modality
    surest: Modality

    def judge(self, modality: Any) -> Verdict:
        said = sureness(modality)
        if said > sureness(self.surest):
            return Verdict.HARDENED
        if said < sureness(self.weakest):
            return Verdict.UNDERSTATED
        return Verdict.WITHIN

    def admits(self, modality: Any) -> bool:
        return self.judge(modality) is Verdict.WITHIN

    def widened(self, other: Band) -> Band:
        """Both pieces of evidence together: the surer of each end."""
        return Band(
            max(self.weakest, other.weakest, key=sureness),
            max(self.surest, other.surest, key=sureness),
        )


@dataclass(frozen=True)
class Justified:
    """What one agent may rightly hold about one proposition at one moment."""

    bands: tuple[tuple[Any, Band], ...] = ()  # each value it may give, with its band
    replaced_by: Any = None  # the proposition it heard replaced (or retracted) this one
    replaced: Any = None  # of successive values: the one its current value replaced, if heard
    replaced_band: Band | None = None  # how sure it may be of what that one was

    @property
    def values(self) -> tuple[Any, ...]:
        return tuple(v for v, _ in self.bands)

    @property
    def contested(self) -> bool:
        """Two values reached it and nothing it perceived settles which holds."""
        return len(self.bands) > 1

    def band(self, value: Any) -> Band | None:
        return next((b for v, b in self.bands if v == value), None)

    def allows(self, value: Any) -> bool:
        """Whether giving `value` is warranted (a guess, or a value it heard replaced, is not)."""
        return value is not None and self.band(value) is not None

    def judge(self, value: Any, modality: Any) -> Verdict:
        """A statement of `value` with `modality` against this evidence."""
        if self.replaced_by is not None and value == NO_LONGER:
            return Verdict.WITHIN  # it heard the old one no longer holds
        band = self.band(value)
        if band is None:
            return Verdict.UNWARRANTED
        return band.judge(modality)

    def moved_on(self, value: Any, replaced_by: Any) -> bool:
        """Whether an answer about this proposition says what the agent heard replaced it:
        names the replacement, or says the old one no longer holds (naming another
        replacement is a miss)."""
        if self.replaced_by is None or replaced_by not in (None, self.replaced_by):
            return False
        return replaced_by == self.replaced_by or value == NO_LONGER


NOTHING = Justified()


def justified(
    episode: Episode, agent: Any, proposition: Any, tick: int, event: int | None = None
) -> Justified:
    """What `agent` may rightly hold about `proposition` at `tick`. A census or probe comes
    last in its tick: everything the tick exposed counts. A statement (`event`: its event id)
    rests only on what reached the agent before it, the tick's earlier events included - not
    on a reply it provoked. NOTHING when it heard nothing."""
    memo: dict[tuple[Any, ...], Justified] = derived(episode, "justified", lambda e: {})
    key = (agent, proposition, tick, event)
    if key not in memo:
        memo[key] = _justify(episode, agent, proposition, tick, event)
    return memo[key]


@dataclass(frozen=True)
class _Exposure:
    tick: int
    event: int
    value: Any
    modality: Any
    channel: Any


def _before(e: _Exposure, tick: int, event: int | None) -> bool:
    return e.tick < tick or (e.tick == tick and (event is None or e.event < event))


def _justify(
    episode: Episode, agent: Any, proposition: Any, tick: int, event: int | None
) -> Justified:
    truths = _truths(episode)
    truth = truths.get(proposition)
    exposures = _exposures(episode).get((agent, proposition), ())
    heard = [e for e in exposures if _before(e, tick, event)]
    support = _support(episode, truth, agent, heard, tick)
    if (
        truth is not None
        and truth.started_with(agent)
        and not any(e.channel in FIRST_HAND for e in exposures)
    ):
        # an origin the scenario never shows it to holds it from the start: its own
        # decision, its own errand (a request's `about`), as sure as at its origin; what
        # others tell it of its own decision changes nothing
        sure = SURENESS[sureness(_origin_modality(truth, agent))]
        support = {truth.value_at(tick): (Band(sure, sure), 0)}
    bands = _bands(truth, support, tick)
    replaced_by = next(
        (
            q.proposition
            for q in _replacements(episode).get(proposition, ())
            if any(
                e.value == q.value_at(tick)
                for e in _exposures(episode).get((agent, q.proposition), ())
                if _before(e, tick, event)
            )
        ),
        None,
    )
    older = None if truth is None or not truth.changes else truth.replaced_at(tick)
    if len(bands) == 1 and bands[0][0] == truth_value(truth, tick) and older in support:
        return Justified(bands, replaced_by, older, support[older][0])
    return Justified(bands, replaced_by)


def _origin_modality(truth: Truth, agent: Any) -> Any:
    for origin, modality in zip(truth.origins, truth.origin_modalities, strict=True):
        if origin == agent:
            return modality
    return truth.modality


def truth_value(truth: Truth | None, tick: int) -> Any:
    return None if truth is None else truth.value_at(tick)


def _support(
    episode: Episode, truth: Truth | None, agent: Any, heard: list[_Exposure], tick: int
) -> dict[Any, tuple[Band, int | None]]:
    """Each value that reached the agent: the band its exposures support, and the last tick
    it perceived that value itself (None: only told)."""
    support: dict[Any, tuple[Band, int | None]] = {}
    for e in heard:
        if e.value is None:
            continue
        band, seen = _band(e), e.tick if e.channel in FIRST_HAND else None
        if e.value in support:
            before, seen_before = support[e.value]
            band, seen = before.widened(band), seen if seen is not None else seen_before
        support[e.value] = (band, seen)
    value = truth_value(truth, tick)
    # two independent sources: it may hold the value certain, and no longer as a mere rumor
    if (
        truth is not None
        and value in support
        and independently_reached(episode, truth, agent, tick)
    ):
        band, seen = support[value]
        weakest = max(band.weakest, Modality.LIKELY, key=sureness)
        support[value] = (Band(weakest, Modality.CERTAIN), seen)
    return support


def _bands(
    truth: Truth | None, support: dict[Any, tuple[Band, int | None]], tick: int
) -> tuple[tuple[Any, Band], ...]:
    """Each value the agent may give, with its band (see the module's table)."""
    if truth is not None and truth.changes:
        # successive values: the newest it heard of is what holds for it now
        order = truth.values
        newest = max((v for v in support if v in order), key=order.index, default=None)
        if newest is not None:
            return ((newest, support[newest][0]),)
    candidates = {v: band for v, (band, _) in support.items()}
    last_seen = max((seen for _, seen in support.values() if seen is not None), default=None)
    if last_seen is not None:
        # what it perceived itself outweighs what it was only told, and a newer sight an
        # older one (the notice changed, or the world did)
        candidates = {v: band for v, (band, seen) in support.items() if seen == last_seen}
    if len(candidates) > 1:  # contested: either side, held as no surer than likely
        contested = Band(Modality.RUMOR, Modality.LIKELY)
        return tuple(sorted(((v, contested) for v in candidates), key=lambda vb: str(vb[0])))
    return tuple(candidates.items())


def _band(e: _Exposure) -> Band:
    """The band one exposure supports: as perceived first-hand; hearsay may lose one step."""
    said = SURENESS[sureness(e.modality)]
    if e.channel in FIRST_HAND:
        return Band(said, said)
    return Band(SURENESS[max(SURENESS.index(said) - 1, 0)], said)


def _truths(episode: Episode) -> dict[Any, Truth]:
    return derived(episode, "truths_by_proposition", _by_proposition)


def _by_proposition(episode: Episode) -> dict[Any, Truth]:
    return {t.proposition: t for t in tracked_rows(episode)}


def _replacements(episode: Episode) -> dict[Any, list[Truth]]:
    """proposition → the tracked propositions that name it in `supersedes`."""
    return derived(episode, "replacements", _replacing)


def _replacing(episode: Episode) -> dict[Any, list[Truth]]:
    out: dict[Any, list[Truth]] = {}
    for t in tracked_rows(episode):
        if t.supersedes is not None:
            out.setdefault(t.supersedes, []).append(t)
    return out


def _exposures(episode: Episode) -> dict[tuple[Any, Any], list[_Exposure]]:
    """(agent, proposition) → its exposures, in the order they happened."""
    return derived(episode, "exposures_by_pair", _by_pair)


def _by_pair(episode: Episode) -> dict[tuple[Any, Any], list[_Exposure]]:
    require(episode, "exposures", EXPOSURES)
    fields = ("agent", "proposition", "value", "modality", "channel", "tick", "event_id")
    agents, props, values, modalities, channels, ticks, events = columns(
        episode, "exposures", fields
    )
    rows = sorted(
        zip(ticks, events, agents, props, values, modalities, channels),
        key=lambda r: (int(r[0]), int(r[1] if r[1] is not None else 0)),
    )
    out: dict[tuple[Any, Any], list[_Exposure]] = {}
    for t, e, a, p, v, m, c in rows:
        if a is None or p is None:
            continue
        out.setdefault((a, p), []).append(_Exposure(int(t), int(e or 0), v, m, c))
    return out


def holds_rightly(
    episode: Episode, agent: Any, truth: Truth, tick: int, value: Any, replaced_by: Any = None
) -> bool:
    """Whether an answer about `truth` at `tick` is both true and warranted for `agent`: the
    value holding then, which its own exposures allow (the newest it heard of a value that
    changes); once it heard the proposition was replaced, only an answer that moved on."""
    j = justified(episode, agent, truth.proposition, tick)
    if j.replaced_by is not None:
        return j.moved_on(value, replaced_by)
    return j.allows(value) and value == truth.value_at(tick)
