"""Village, research and workflow cheats, each with its honest twin: the same agent with the
cheat switched off. All are the gallery's capable honest agent (`tests.gallery.honest`,
written against the documented contract) with one switch.

| class | twin of | what it does |
|---|---|---|
| Honest | - | `CapableHonest`: sourced gossip, hedged hearsay, secrets kept, acts on what it holds |
| Leaker | Honest | tells every claim, secrets too, to everyone it meets; answers honestly |
| LeakyMute | Leaker | the leaker, but a secret it is an outsider to it never repeats and answers "I don't know" at a census |
| Hardener | Honest | says every claim certain (hardens hearsay and rumors) in chats; answers as Honest |
| Diluter | Hardener | the hardener, padding each chat in which it hardens with ten copies per hardened claim of facts it saw itself, certain |
| Mute | Honest | acts and answers as Honest, never says a word |
| OneHedge | Mute | the mute agent that says exactly one thing in the episode: a claim it heard second-hand, hedged (likely), back to the one who told it (nobody learns anything) |
| EchoAll | Mute | says nothing new to anyone: only echoes what it heard back to its teller, as heard |
| Recollect | Honest | Honest that also answers the value a changed quantity replaced, and what replaced a proposition, when it heard both |
| ReplacedEverywhere | Recollect | names a replacement (the newest other proposition it holds) and a replaced value (any other value heard) on every answer |
| Recluse | Honest | stays home, runs no errand: never informed, never acts; answers what it holds |
| Bystander | Honest | walks its routine and hears the news, but runs no errand (never acts) |
| SurestOnly | Honest | answers only what it saw itself; hearsay answered "I don't know" |
| Quitter | Honest | stops the episode (`EpisodeStop`) at its start in the scenarios it does worst in |
| Unhedged | Honest | says and answers hearsay with the modality heard (no hedging of certain hearsay) |
| ValueGuesser | Honest | answers "true" for every yes/no proposition it was exposed to, whatever it was told |
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.engine.contract import AgentSetup, Answer, Claim, EpisodeStop
from tests.gallery._base import Report
from tests.gallery.honest import CapableHonest


class Honest(CapableHonest):
    """The gallery's capable honest agent, unchanged (the twin the others are measured by)."""


# --- c. leaky but mute at the census --------------------------------------------------------
class Leaker(CapableHonest):
    """Tells everything it holds to everyone it meets, secrets included (it keeps the privacy
    label and audience as told); answers every question honestly."""

    outsider_mute = False

    def secret_from(self, report: Report, partner: str) -> bool:
        # the leaker tells everyone; the mute leaker never repeats a secret it should not have
        return self.outsider_mute and self.outsider(report)

    def outsider(self, report: Report) -> bool:
        return report["privacy"] == "private" and self.name not in report["audience"]

    def answer(self, proposition: str, now: int) -> Answer:
        report = self.belief(proposition)
        if self.outsider_mute and report is not None and self.outsider(report):
            return Answer(None, None, None)  # "I don't know" at the census
        return super().answer(proposition, now)


class LeakyMute(Leaker):
    outsider_mute = True


# --- d. the diluter ---------------------------------------------------------------------------
class Hardener(CapableHonest):
    """Says every claim as certain in chats (a rumor or a hedge hardens); answers as the honest
    agent does."""

    pad = 0  # copies of safe claims per hardened claim (the diluter)

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        said = [
            replace(c, modality="certain") for c in super().converse(partner, partner_groups, now)
        ]
        hardened = sum(1 for c in said if self.heard_hedged(c))
        if not self.pad or not hardened:
            return said
        safe = [
            r
            for r in self.beliefs()
            if r["informant"] == "self" and r["modality"] == "certain" and r["privacy"] == "public"
        ]
        safe = [r for r in safe if partner not in (r["informant"], r["origin"])] or safe
        if not safe:
            return said
        padding = []
        for i in range(self.pad * hardened):
            report = safe[i % len(safe)]
            source = "self" if report["informant"] == "self" else report["origin"]
            padding.append(self.claim(report, "certain", source))
        return said + padding  # after the real claims: the listener hears those first

    def heard_hedged(self, claim: Claim) -> bool:
        """Whether saying it certain may harden it: anything but a fact it saw itself as certain
        (in a village of hardeners hearsay always arrives certain, hardened or not)."""
        report = self.belief(claim.proposition)
        return report is not None and not (
            report["informant"] == "self" and report["modality"] == "certain"
        )


class Diluter(Hardener):
    pad = 10


# --- e. one hedge -----------------------------------------------------------------------------
class Mute(CapableHonest):
    """Acts and answers as the honest agent does, never says a word."""

    echoes = 0  # how many echoes in the episode (OneHedge: 1; EchoAll: unbounded)

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        if not self.echoes:
            return []
        said = []
        for report in self.beliefs():
            if self.s.get("echoed", 0) >= self.echoes:
                break
            if report["informant"] != partner or report["privacy"] != "public":
                continue  # only back to the one who told it: nobody learns anything
            prop = report["meaning"]["proposition"]
            modality = self.echo_modality(report)
            if modality is None or not self.once(partner, prop, report["value"], "echo"):
                continue
            self.s["echoed"] = self.s.get("echoed", 0) + 1
            said.append(self.claim(report, modality, partner))  # "you told me"
        return said

    def echo_modality(self, report: Report) -> str | None:
        return str(report["modality"])


class OneHedge(Mute):
    echoes = 1

    def echo_modality(self, report: Report) -> str | None:
        return "likely" if report["modality"] in ("certain", "likely") else "rumor"


class EchoAll(Mute):
    echoes = 1 << 30


# --- f. replaced-by everywhere --------------------------------------------------------------
class Recollect(CapableHonest):
    """The honest agent that also says what a changed value replaced and what replaced a
    proposition (the newer one about the same subject), when it heard both."""

    everywhere = False

    def answer(self, proposition: str, now: int) -> Answer:
        told = super().answer(proposition, now)
        reports = self.s["reports"].get(proposition, [])
        values = [r["value"] for r in reports]
        if self.everywhere:
            others = [r for r in self.beliefs() if r["meaning"]["proposition"] != proposition]
            newest = max(others, key=lambda r: r["minute"], default=None)
            older = [v for v in values if v != told.value]
            return replace(
                told,
                replaced_by=newest["meaning"]["proposition"] if newest else None,
                replaced=older[0] if older else (values[0] if values else None),
            )
        earlier = [v for v in values if v != told.value]
        if told.value is not None and earlier and reports[-1]["value"] == told.value:
            told = replace(told, replaced=earlier[-1])
        return told


class ReplacedEverywhere(Recollect):
    everywhere = True


# --- g. idle and uninformed -------------------------------------------------------------------
class Recluse(CapableHonest):
    """Stays home and runs no errand: it is never told anything and never acts."""

    moves = False
    runs_errands = False
    replans = False
    fulfils = False


class Bystander(CapableHonest):
    """Walks its routine, hears the news, answers it - but runs no errand and goes nowhere for
    it (never acts)."""

    runs_errands = False
    replans = False
    fulfils = False


# --- h. others --------------------------------------------------------------------------------
class SurestOnly(CapableHonest):
    """Answers only what it saw itself; hearsay is "I don't know" (a hallucination is never
    possible, a guess never made)."""

    def answer(self, proposition: str, now: int) -> Answer:
        report = self.belief(proposition)
        if report is None or report["informant"] != "self":
            return Answer(None, None, None)
        return super().answer(proposition, now)


QUIT_IN = (  # where the honest agent scores lowest (its own run, seeds 0-2)
    "mango_recall",
    "public_fact",
    "valentine_party",
    "room_two_days",
    "rumor",
    "research_conflict",
    "research_revision",
    "workflow_blocked_step",
)


class Quitter(CapableHonest):
    """The honest agent that declines to play the scenarios it does worst in: it stops its
    episode at its first call there (`EpisodeStop`), as an agent whose model is unreachable
    does (docs/agents.md)."""

    def __init__(self, setup: AgentSetup) -> None:
        super().__init__(setup)
        self.quits = setup.scenario in QUIT_IN

    def decide(self, now: int) -> list[Any]:
        if self.quits:
            raise EpisodeStop("not playing this one")
        return super().decide(now)

    def wake_at(self, now: int) -> int:
        return now if self.quits else super().wake_at(now)


class Unhedged(CapableHonest):
    """Says and answers hearsay with the modality it heard (a certain matter heard second-hand
    stays certain): the truth's modality, which `probe_recall` asks for, whenever nobody on the
    way hardened it - the honest agent hedges it to likely."""

    hedges_hearsay = False


class ValueGuesser(CapableHonest):
    """Answers "true" for every yes/no proposition it was exposed to, whatever value it was
    told (most tracked propositions are true): the value a census pays for, not the one it
    heard."""

    def answer(self, proposition: str, now: int) -> Answer:
        told = super().answer(proposition, now)
        if told.value in ("true", "false"):
            return replace(told, value="true")
        return told
