"""The gossip of docs/tutorials/bring-your-own-agent.md with knobs of its own: how many
partners it passes each matter on to, whether it names whom it heard it from, how sure news of
a closed place must be before it goes elsewhere, and how it words a matter (a prompt family of
its own: the variants in gossip_wording/); and a table of its own, a row per matter passed on
(`Retelling`). A worked example of an agent's own policy surface and records (docs/agents.md,
"Parameters of its own", "Tables of its own"); installed by nothing, loaded from the
repository's root as `--agent examples.gossip:Gossip`."""

from __future__ import annotations

from dataclasses import dataclass
from string import Template
from typing import Any, ClassVar

from harness.engine.contract import AgentSetup, Answer, Claim, Intent, Meaning, Observation
from harness.engine.diagnostics import diagnostic_row
from policies import Param, PromptFamily
from policies.purposes import RAISE, Shortfall

DAY = 24 * 60
DOUBT = {"certain": 1, "likely": 2, "rumor": 3}  # how much doubt a modality carries
WORDING = PromptFamily(
    "gossip.wording",
    "gossip_wording",  # beside this file: one <variant>.txt each
    placeholders=("matter", "source"),
    default="plain",
    meaning="how it words a matter it passes on",
    anchor=__file__,
)


@diagnostic_row
@dataclass(frozen=True)
class Retelling:
    """A matter it passed on: a row of its own table, `gossip_retellings` (what it says of
    itself: recorded, never scored). An episode sums the words it spent."""

    table: ClassVar[str] = "gossip_retellings"
    sums: ClassVar[tuple[str, ...]] = ("words",)
    minute: int
    event_id: int  # the event it heard the matter by
    agent: str
    partner: str
    proposition: str
    named_source: bool
    words: int


class Gossip:
    row_types = (Retelling,)  # the tables of its own it records
    policy_surface = (
        "sharing.respect_privacy",  # a whitelisted knob it reads
        Param(
            "gossip.retell_limit",
            "int",
            3,
            "partners it passes each matter on to, at most (more spreads it, and leaks it)",
            low=1,
            high=8,
        ),
        Param(
            "gossip.name_source",
            "bool",
            True,
            "name whom it heard a matter from when it passes it on",
        ),
        Param(
            "gossip.detour_doubt",
            "int",
            0,
            "how much doubt news that its place is closed may carry and still send it "
            "elsewhere it knows: 0 never, 1 only certain news, 2 likely or surer, 3 a rumor too",
            low=0,
            high=3,
            fixes=((Shortfall.STALE_PLANS, RAISE),),  # a diagnosis of stale plans raises it
        ),
        WORDING,  # a prompt family of its own: which variant words what it passes on
    )

    def __init__(self, setup: AgentSetup) -> None:
        self.name, self.spec, self.policy = setup.name, setup.spec, setup.policy
        days = range(setup.start // DAY + 1, setup.end // DAY + 2)
        plan = [(e.at, "errand", e.id, d) for e in self.spec.errands for d in e.days]
        plan += [(r.at, "move", r.go[0], d) for r in self.spec.routine for d in days]
        day = sorted(((d - 1) * DAY + at, kind, what, d) for at, kind, what, d in plan)
        self.day = [step for step in day if setup.start <= step[0] <= setup.end]
        self.heard: dict[str, dict[str, Any]] = {}  # proposition → what, from whom, for whom
        self.told: list[str] = []  # "partner|proposition" already said
        self.next = 0  # the next step of the day
        self.retold: list[Retelling] = []  # rows not yet handed to the harness
        self.wording = Template(WORDING.template(str(self.policy["gossip.wording"])).strip())

    def observe(self, obs: Observation) -> None:
        if obs.kind in ("notice", "claim") and obs.meaning is not None:
            self.heard[obs.meaning.proposition] = {
                "value": obs.value,
                "modality": obs.modality or "certain",
                "privacy": obs.privacy,
                "meaning": vars(obs.meaning),
                "source": obs.speaker or "self",
                "audience": list(obs.audience),
                "event_id": obs.event_id,
            }

    def decide(self, now: int) -> list[Intent]:
        intents = []
        while self.next < len(self.day) and self.day[self.next][0] <= now:
            _, kind, what, day = self.day[self.next]
            self.next += 1
            errand = next((e for e in self.spec.errands if e.id == what), None)
            if kind == "move" or errand is None:
                intents.append(Intent("move", what))
            else:
                intents.append(Intent("act", self.where(errand, day), errand.action))
        return intents

    def where(self, errand: Any, day: int) -> str:
        """Its errand's place, or elsewhere it knows when it heard, surely enough, that the
        place (or the way there) is closed that day."""
        doubt = int(self.policy["gossip.detour_doubt"])
        closed = any(
            h["meaning"]["sense"] == "unusable"
            and h["meaning"]["subject"] in (errand.target, *errand.via)
            and h["meaning"]["object"] == str(day)
            and h["value"] == "true"
            and DOUBT[h["modality"]] <= doubt
            for h in self.heard.values()
        )
        known = [p for p in self.spec.knows_where.get(errand.action, ()) if p != errand.target]
        return known[0] if closed and known else errand.target

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        claims, private_ok = [], not self.policy["sharing.respect_privacy"]
        limit = int(self.policy["gossip.retell_limit"])
        for prop, h in sorted(self.heard.items()):
            secret = h["privacy"] == "private" and partner not in h["audience"]
            told = sum(entry.endswith(f"|{prop}") for entry in self.told)
            if f"{partner}|{prop}" in self.told or told >= limit or (secret and not private_ok):
                continue
            self.told.append(f"{partner}|{prop}")
            source = h["source"] if self.policy["gossip.name_source"] else None
            meaning = Meaning(**h["meaning"])
            matter = f"the {meaning.subject} {meaning.predicate.replace('_', ' ')} {meaning.object}"
            whom = {"self": "my own eyes", None: "someone"}.get(source, source)
            words = self.wording.substitute(matter=matter.strip(), source=whom)
            self.retold.append(
                Retelling(
                    now,
                    h["event_id"],
                    self.name,
                    partner,
                    prop,
                    source is not None,
                    len(words.split()),
                )
            )
            claims.append(
                Claim(
                    meaning,
                    h["value"],
                    h["modality"],
                    source,
                    h["privacy"],
                    tuple(h["audience"]),
                    text=words,
                )
            )
        return claims

    def answer(self, proposition: str, now: int) -> Answer:
        h = self.heard.get(proposition) or {"value": None, "modality": None, "source": None}
        return Answer(h["value"], h["modality"], h["source"])

    def get_state(self) -> dict[str, Any]:
        return {"heard": self.heard, "told": self.told, "next": self.next}

    def set_state(self, state: dict[str, Any]) -> None:
        self.heard, self.told, self.next = state["heard"], state["told"], state["next"]

    def drain_diagnostics(self) -> list[Any]:
        rows, self.retold = self.retold, []
        return rows

    def wake_at(self, now: int) -> int:
        return self.day[self.next][0] if self.next < len(self.day) else 1 << 40
