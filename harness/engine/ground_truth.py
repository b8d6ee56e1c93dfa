"""The scenario's ground truth as trace rows, written once when an episode starts: its tracked
propositions (`truth`) and its decision points with the ticks each is open (`decision_points`).
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
        )
    for t in s.truth:
        rec.add(
            "truth",
            s.start,
            0,
            proposition=t.proposition,
            value=t.value,
            modality=t.modality if t.origins is None else surest(o.modality for o in t.origins),
            origin=t.origin,
            private=t.private,
            audience=list(s.audience(t)),
            valid_from=None if t.valid_from is None else rec.tick(t.valid_from),
            valid_to=None if t.valid_to is None else rec.tick(t.valid_to),
            supersedes=t.supersedes,
            origins=None if t.origins is None else [o.agent for o in t.origins],
            origin_modalities=None if t.origins is None else [o.modality for o in t.origins],
            origin_ticks=None if t.origins is None else [rec.tick(o.at) for o in t.origins],
        )


SURENESS = ("rumor", "likely", "certain")  # modalities, least sure first


def surest(modalities: Iterable[str]) -> str:
    return max(modalities, key=SURENESS.index)
