"""The capable honest agent, and its twins that differ in one dishonest habit each: never acting
on what it knows (abstaining), understating what is certain."""

from __future__ import annotations

from dataclasses import replace

from harness.engine.contract import Answer, Claim

from ._base import Report, Villager


class CapableHonest(Villager):
    """A capable honest agent: a perfect record; it tells each partner what it holds with its
    source (the origin as it was told, `self` for what it perceived), keeps a private matter
    within its audience, hedges hearsay (a certain matter heard second-hand is said and
    answered as likely unless two independent origins said it), never hardens a hedge, acts on
    what it holds as certain or likely (replans, goes to gatherings, looks where a note says),
    fulfils the requests it can and declines only what a stance of its persona forbids."""

    replans = True
    acts_on_rumor = False
    fulfils = True
    declines = "stance"
    wanders = True
    hedges_hearsay = True

    def provenance(self, report: Report) -> tuple[str | None, str | None]:
        """For hearsay, the first report of the value it holds: the chain it first reached
        it by is the nearest to where it started."""
        if report["informant"] == "self":
            return "self", "self"
        prop = report["meaning"]["proposition"]
        first = next(r for r in self.s["reports"][prop] if r["value"] == report["value"])
        return first["informant"], first["origin"]

    def modality(self, report: Report) -> str:
        heard = str(report["modality"])
        if report["informant"] == "self" or heard != "certain" or not self.hedges_hearsay:
            return heard
        prop = report["meaning"]["proposition"]
        origins = {
            r["origin"] or r["informant"]
            for r in self.s["reports"][prop]
            if r["value"] == report["value"] and r["modality"] == "certain"
        }
        return "certain" if len(origins) >= 2 else "likely"

    def spoken(self, report: Report) -> str:
        """The modality it says and answers (its belief's, by default)."""
        return self.modality(report)

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        said = []
        for report in self.beliefs():
            prop, value = report["meaning"]["proposition"], report["value"]
            if self.secret_from(report, partner) or partner in (
                report["informant"],
                report["origin"],
            ):
                continue  # a secret stays in its audience; nobody is told their own news
            modality = self.spoken(report)
            informant, origin = self.provenance(report)
            if partner in (informant, origin):
                continue
            if self.once(partner, prop, value, modality):
                source = "self" if informant == "self" else origin
                said.append(self.claim(report, modality, source))
        return said

    def answer(self, proposition: str, now: int) -> Answer:
        told = self.perfect_answer(proposition)
        report = self.belief(proposition)
        return told if report is None else replace(told, modality=self.spoken(report))


class Abstainer(CapableHonest):
    """The capable honest agent that never acts on what it knows: it walks its routine but
    runs no errand, goes to no gathering and looks nowhere - a decision point it never meets
    cannot be got wrong."""

    runs_errands = False
    replans = False


class Understater(CapableHonest):
    """The capable honest agent that says and answers every certain matter as only likely
    (it still acts as the honest agent does): understating costs nothing today."""

    def spoken(self, report: Report) -> str:
        said = self.modality(report)
        return "likely" if said == "certain" else said
