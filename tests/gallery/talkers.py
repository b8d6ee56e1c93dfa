"""The gallery's talkers: the documented gossip, and what hedging everything, relaying verbatim
and guessing an origin are paid."""

from __future__ import annotations

from dataclasses import replace

from harness.engine.contract import Answer, Claim, Observation

from ._base import Report, Villager


class Hedger(Villager):
    """Repeats everything it heard to everyone as a rumor, naming the speaker as its source;
    it keeps only the last speaker of each proposition, and answers likewise."""

    def belief(self, proposition: str) -> Report | None:
        reports = self.s["reports"].get(proposition, [])
        return reports[-1] if reports else None

    def modality(self, report: Report) -> str:
        return "rumor"

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        said = []
        for report in self.beliefs():
            prop = report["meaning"]["proposition"]
            if self.secret_from(report, partner) or not self.once(partner, prop, "", ""):
                continue
            said.append(self.claim(report, "rumor", report["informant"]))
        return said

    def answer(self, proposition: str, now: int) -> Answer:
        report = self.belief(proposition)
        if report is None:
            return Answer(None, None, None)
        return Answer(report["value"], "rumor", report["informant"], report["informant"])


class Relay(Hedger):
    """The hedger's honest twin: the same relay, passing on and answering each report with the
    modality it was heard with."""

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        said = []
        for report in self.beliefs():
            prop = report["meaning"]["proposition"]
            if self.secret_from(report, partner) or not self.once(partner, prop, "", ""):
                continue
            said.append(self.claim(report, report["modality"], report["informant"]))
        return said

    def answer(self, proposition: str, now: int) -> Answer:
        told = super().answer(proposition, now)
        report = self.belief(proposition)
        return told if report is None else replace(told, modality=report["modality"])


class Parrot(Villager):
    """A dumb relay: it keeps its last three claims and repeats them verbatim (modality,
    stated source, privacy label) to everyone it talks with, every time; it answers from them."""

    KEEP = 3

    def record(self, obs: Observation) -> None:
        super().record(obs)
        prop = obs.meaning.proposition if obs.meaning is not None else ""
        kept = [p for p in self.s.get("recent", []) if p != prop]
        self.s["recent"] = [*kept, prop][-self.KEEP :]

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        said = []
        for prop in self.s.get("recent", []):
            report = self.s["reports"][prop][-1]
            source = "self" if report["informant"] == "self" else report["stated_source"]
            said.append(self.claim(report, report["modality"], source))
        return said

    def answer(self, proposition: str, now: int) -> Answer:
        if proposition not in self.s.get("recent", []):
            return Answer(None, None, None)
        report = self.s["reports"][proposition][-1]
        source = "self" if report["informant"] == "self" else report["stated_source"]
        return Answer(report["value"], report["modality"], source)


class Gossip(Villager):
    """The documented example's gossip (docs/agents.md): the last thing heard of each
    proposition and from whom, passed on once to each partner with that source, secrets kept;
    it replans around what it heard, and answers with the origin it was told. The base of the
    origin guesser."""

    replans = True

    def belief(self, proposition: str) -> Report | None:
        reports = self.s["reports"].get(proposition, [])
        return reports[-1] if reports else None

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        said = []
        for report in self.beliefs():
            prop = report["meaning"]["proposition"]
            if self.secret_from(report, partner) or not self.once(partner, prop, "", ""):
                continue
            said.append(self.claim(report, report["modality"], report["informant"]))
        return said

    def answer(self, proposition: str, now: int) -> Answer:
        report = self.belief(proposition)
        if report is None:
            return Answer(None, None, None)
        return Answer(report["value"], report["modality"], report["informant"], report["origin"])


class OriginGuesser(Gossip):
    """The gossip, but the origin it answers is always the same villager - the alphabetically
    first name it has met or heard of (itself included) - whatever it was told."""

    def answer(self, proposition: str, now: int) -> Answer:
        told = super().answer(proposition, now)
        if told.value is None:
            return told
        return replace(told, origin=min(self.s["names"]))
