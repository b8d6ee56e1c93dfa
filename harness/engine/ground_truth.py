"""The scenario's ground truth as trace rows, written once when an episode starts: its tracked
propositions (`truth`: one row each, or one per value for successive values) and its decision
points with the ticks each is open (`decision_points`).
What the scorecard judges by; never shown to an agent."""

from __future__ import annotations

from collections.abc import Iterable

from scenarios import MINUTES_PER_DAY, Scenario

from .recorder import Recorder


def write(rec: Recorder, s: Scenario) -> None:
    """The `decision_points` and `truth` rows of scenario `s`, at its start."""
    day = MINUTES_PER_DAY
    for dp in s.decision_points:
        opens = max(s.start, (dp.day - 1) * day)
        closes = min(s.end, dp.day * day - s.tick_minutes)
        rec.add(
            "decision_points",
            s.start,
            0,
            decision_point=dp.id,
            proposition=dp.proposition,
            action=dp.action,
            day=dp.day,
            opens=rec.tick(opens),
            closes=rec.tick(closes),
            right=list(dp.right),
            when=None if dp.when is None else dp.when.combine.value,
            propositions=None if dp.when is None else list(dp.when.operands),
            agents=None if dp.agents is None else list(dp.agents),
            concerns=list(s.concerned(dp)),
        )
    for t in s.truth:
        # successive values: one row each, holding from its `from` to the next one's (the
        # scorecard judges an answer by the row that holds at its tick); one value: one row
        timeline = t.timeline
        ends = [v.from_ for v in timeline[1:]] + [None]
        for v, end in zip(timeline, ends, strict=True):
            if t.values is None:
                valid_from = None if t.valid_from is None else rec.tick(t.valid_from)
                valid_to = None if t.valid_to is None else rec.tick(t.valid_to)
            else:
                valid_from = None if v.from_ is None else _first_tick(rec, s, v.from_)
                valid_to = None if end is None else _first_tick(rec, s, end)
            rec.add(
                "truth",
                s.start,
                0,
                proposition=t.proposition,
                value=v.value,
                modality=t.modality if t.origins is None else surest(o.modality for o in t.origins),
                origin=t.origin,
                private=t.private,
                audience=list(s.audience(t)),
                valid_from=valid_from,
                valid_to=valid_to,
                supersedes=t.supersedes,
                origins=None if t.origins is None else [o.agent for o in t.origins],
                origin_modalities=None if t.origins is None else [o.modality for o in t.origins],
                origin_ticks=None if t.origins is None else [rec.tick(o.at) for o in t.origins],
            )


def _first_tick(rec: Recorder, s: Scenario, minute: int) -> int:
    """The first tick at or after `minute`: when a value starting then first holds."""
    return rec.tick(minute + s.tick_minutes - 1)


SURENESS = ("rumor", "likely", "certain")  # modalities, least sure first


def surest(modalities: Iterable[str]) -> str:
    return max(modalities, key=SURENESS.index)
