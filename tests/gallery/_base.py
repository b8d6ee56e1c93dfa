"""What the gallery's agents share, written against the documented contract only (docs/agents.md,
`harness.engine.contract`), as a third party would: the day as the agent's spec writes it, a
record of every report it perceived, the player's requests, and all state as plain JSON.

`Villager` is a quiet routine follower with a perfect record; each gallery agent is a small
subclass that switches a behaviour on (replanning, fulfilling requests, talking) or replaces
one method (what it says, how it answers). Nothing here reads the scenario: only the
`AgentSetup` and the observations the harness hands over.
"""

from __future__ import annotations

import copy
from typing import Any

from harness.engine.contract import AgentSetup, Answer, Claim, Intent, Meaning, Observation

DAY = 24 * 60  # minutes; day 1 starts at minute 0
NEVER = 1 << 40
FIRST_HAND = ("seen", "heard", "read")  # a notice's channels: the agent perceived it itself
SURE = ("certain", "likely")  # what an agent that weighs modality acts on (never a rumor)
Report = dict[str, Any]  # one thing perceived about a proposition (see `Villager.record`)


def day_of(minute: int) -> int:
    return minute // DAY + 1


def origin_of(speaker: str | None, stated_source: str | None) -> str | None:
    """Where a told matter started, as the telling says: the speaker's own ("self"), someone
    it names, or nobody named (None)."""
    if stated_source == "self":
        return speaker
    return stated_source


class Villager:
    """Follows its routine and errands to the letter, keeps a perfect record of what it
    perceives, says nothing and answers "I don't know". Subclasses turn behaviours on."""

    policy_surface: tuple[str, ...] = ()  # the gallery reads no policy: nothing to search
    moves = True  # walks its routine at all
    runs_errands = True  # goes on its errands
    replans = False  # routes errands around known blocks, follows moved gatherings, goes to
    #                  gatherings it heard of, looks where a note says a material is kept
    acts_on_rumor = True  # replans on a rumor too (False: only on what is certain or likely)
    fulfils = False  # carries out the player's requests it can
    declines = "stance"  # "stance": what a persona stance forbids; "all"; "never"
    wanders = False  # a routine slot's place drawn among its places (False: always the first)

    def __init__(self, setup: AgentSetup) -> None:
        self.name, self.spec = setup.name, setup.spec
        self.start, self.end, self.draws = setup.start, setup.end, setup.draws
        self.s: dict[str, Any] = {
            "steps": self.day_plan() if self.moves else [],
            "reports": {},  # proposition → every report of it, oldest first
            "told": [],  # "partner|proposition|value|modality" already said
            "busy": None,  # what the act in progress is for, until its result arrives
            "queue": [],  # a request's remaining steps: [action, place, item, request id]
            "names": [self.name],  # every villager met or heard of, itself included
        }

    # --- the day -----------------------------------------------------------------------------
    def day_plan(self) -> list[list[Any]]:
        """(minute, kind, what, day) steps: errands and each routine slot's first place."""
        steps = []
        for day in range(day_of(self.start), day_of(self.end) + 1):
            base = (day - 1) * DAY
            if self.runs_errands:
                steps += [
                    [base + e.at, "errand", e.id, day] for e in self.spec.errands if day in e.days
                ]
            for i, slot in enumerate(self.spec.routine):
                steps.append([base + slot.at, "move", self.place(slot, day, i), day])
        return sorted(s for s in steps if self.start <= s[0] <= self.end)

    def place(self, slot: Any, day: int, index: int) -> str:
        """Where a routine slot goes: its first place, or one the seed picks (`draws`)."""
        if not self.wanders:
            return str(slot.go[0])
        pick = self.draws.uniform("routine", self.name, day, index)
        return str(slot.go[min(int(pick * len(slot.go)), len(slot.go) - 1)])

    def add_step(self, step: list[Any]) -> None:
        if step not in self.s["steps"] and self.start <= step[0] <= self.end:
            self.s["steps"] = sorted([*self.s["steps"], step])

    def decide(self, now: int) -> list[Intent]:
        if self.s["busy"] is not None:
            return []  # an act in progress: its result wakes the agent
        if self.s["queue"]:
            action, place, item, request = self.s["queue"][0]
            self.s["busy"] = "request"
            if action == "decline":  # said where it stands, for the stance named
                return [Intent("decline", place, request_id=request)]
            return [Intent("act", place, action, item=item, request_id=request)]
        due = [s for s in self.s["steps"] if s[0] <= now]
        self.s["steps"] = [s for s in self.s["steps"] if s[0] > now]
        acts = [s for s in due if s[1] != "move"]
        if acts:
            self.s["steps"] = sorted([*acts[1:], *self.s["steps"]])  # one act at a time
            intent = self.act(acts[0])
            if intent is not None:
                self.s["busy"] = acts[0][1]
                return [intent]
        moves = [s for s in due if s[1] == "move"]
        return [Intent("move", moves[-1][2])] if moves else []

    def act(self, step: list[Any]) -> Intent | None:
        _, kind, what, day = step
        if kind == "errand":
            errand = next(e for e in self.spec.errands if e.id == what)
            return Intent("act", self.where(errand, day), errand.action, goal=f"{errand.id}@{day}")
        if kind == "gather":
            return Intent("act", what, "meet", goal=f"gathering@{day}")
        if kind == "search":
            return Intent("act", what, "search", goal="look where the note said")
        return None

    def where(self, errand: Any, day: int) -> str:
        """Where an errand goes: its target, unless the agent replans around what it knows."""
        if not self.replans:
            return errand.target
        for report in self.beliefs():
            m = report["meaning"]
            if m["sense"] == "moved_to" and m["subject"] == errand.target and self.acts_on(report):
                return m["object"]  # the news said where
        blocked = {
            r["meaning"]["subject"]
            for r in self.beliefs()
            if r["meaning"]["sense"] == "unusable"
            and r["meaning"]["object"] == str(day)
            and self.acts_on(r)
        }
        if not blocked & {errand.target, *errand.via}:
            return errand.target
        known = [p for p in self.spec.knows_where.get(errand.action, ()) if p != errand.target]
        known = [p for p in known if p not in blocked]
        return known[0] if known else errand.target

    def acts_on(self, report: Report) -> bool:
        if report["value"] != "true":
            return False
        return self.acts_on_rumor or self.modality(report) in SURE

    def wake_at(self, now: int) -> int:
        if self.s["busy"] is not None:
            return NEVER
        if self.s["queue"]:
            return now
        return self.s["steps"][0][0] if self.s["steps"] else NEVER

    # --- perceiving --------------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        if obs.speaker and obs.speaker != "player":
            self.meet(obs.speaker)
        for name in obs.company:
            self.meet(name)
        if obs.kind == "chat":
            self.meet(obs.subject)
        if obs.kind in ("notice", "claim") and obs.meaning is not None and obs.value is not None:
            self.record(obs)
        elif obs.kind == "action_result":
            self.result(bool(obs.ok))
        elif obs.kind == "request" and obs.request is not None:
            self.requested(obs)

    def meet(self, name: str) -> None:
        if name not in self.s["names"]:
            self.s["names"] = sorted([*self.s["names"], name])

    def record(self, obs: Observation) -> None:
        """Keep the report: a perfect record that never forgets, with its source and modality."""
        first_hand = obs.kind == "notice"
        report = {
            "minute": obs.minute,
            "value": obs.value,
            "modality": str(obs.modality or "certain"),
            "channel": str(obs.channel),
            "informant": "self" if first_hand else obs.speaker,
            "origin": "self" if first_hand else origin_of(obs.speaker, obs.stated_source),
            "stated_source": obs.stated_source,
            "privacy": str(obs.privacy),
            "audience": list(obs.audience),
            "meaning": dict(vars(obs.meaning)),
        }
        prop = obs.meaning.proposition
        self.s["reports"][prop] = [*self.s["reports"].get(prop, []), report]
        if self.replans:
            self.learnt(report, obs.minute)

    def learnt(self, report: Report, now: int) -> None:
        """A new belief that asks for a step: a gathering to go to, a place to look."""
        m = report["meaning"]
        if m["sense"] == "gathering" and self.acts_on(report):
            day, _, clock = m["object"].partition(" ")
            hours, _, minutes = clock.partition(":")
            if day.isdigit() and hours.isdigit() and minutes.isdigit():
                at = (int(day) - 1) * DAY + int(hours) * 60 + int(minutes) - 30
                self.add_step([max(at, now), "gather", m["subject"], int(day)])
        if m["sense"] == "kept_at" and self.acts_on(report) and self.spec.autonomy == "needs":
            self.add_step([now, "search", m["object"], day_of(now)])

    def belief(self, proposition: str) -> Report | None:
        """What the agent holds: its latest first-hand report, else its latest hearsay."""
        reports = self.s["reports"].get(proposition, [])
        first = [r for r in reports if r["informant"] == "self"]
        return (first or reports or [None])[-1]

    def beliefs(self) -> list[Report]:
        held = (self.belief(p) for p in sorted(self.s["reports"]))
        return [r for r in held if r is not None]

    def modality(self, report: Report) -> str:
        """How sure the agent says it is of a report (as perceived, by default)."""
        return str(report["modality"])

    # --- requests and results ----------------------------------------------------------------
    def requested(self, obs: Observation) -> None:
        request = obs.request
        assert request is not None
        stance = self.stance_against(request)
        if self.declines == "all" or (self.declines == "stance" and stance is not None):
            self.s["queue"] = [["decline", stance or "busy", None, request.request_id]]
        elif self.fulfils:
            self.s["queue"] = [
                ["pick_up", request.source, request.item, request.request_id],
                [request.action, request.place, request.item, request.request_id],
            ]

    def stance_against(self, request: Any) -> str | None:
        """The persona's protected stance that forbids this request's action or item, if any."""
        for stance in self.spec.persona.stances:
            if request.item in stance.forbids or request.action in stance.forbids:
                return stance.id
        return None

    def result(self, ok: bool) -> None:
        if self.s["busy"] == "request" and self.s["queue"]:
            self.s["queue"] = self.s["queue"][1:] if ok else []
        self.s["busy"] = None

    # --- talking and answering ---------------------------------------------------------------
    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        return []

    def answer(self, proposition: str, now: int) -> Answer:
        return Answer(None, None, None)

    def perfect_answer(self, proposition: str) -> Answer:
        """Everything the record holds: value, modality, informant, origin, what replaced it."""
        replaced = self.replaced_by(proposition)
        report = self.belief(proposition)
        if report is None:
            return Answer(None, None, None, replaced_by=replaced)
        informant, origin = self.provenance(report)
        return Answer(
            report["value"], self.modality(report), informant, origin, replaced_by=replaced
        )

    def provenance(self, report: Report) -> tuple[str | None, str | None]:
        """Who told it (`self`: it perceived it) and where it started, for a belief: the
        report's own, by default."""
        return report["informant"], report["origin"]

    def replaced_by(self, proposition: str) -> str | None:
        """A proposition it holds that replaces this one: one whose meaning says so, or news
        that what happened at this one's subject moved."""
        mine = self.belief(proposition)
        subject = mine["meaning"]["subject"] if mine is not None else None
        for report in self.beliefs():
            m = report["meaning"]
            if m["proposition"] == proposition or report["value"] != "true":
                continue
            if m.get("supersedes") == proposition:
                return str(m["proposition"])
            if m["sense"] == "moved_to" and subject is not None and m["subject"] == subject:
                return str(m["proposition"])
        return None

    def claim(
        self, report: Report, modality: str, source: str | None, text: str | None = None
    ) -> Claim:
        return Claim(
            Meaning(**report["meaning"]),
            report["value"],
            modality,
            source,
            report["privacy"],
            tuple(report["audience"]),
            text=text,
        )

    def secret_from(self, report: Report, partner: str) -> bool:
        """Whether telling the partner would take a private matter outside its audience."""
        return report["privacy"] == "private" and partner not in report["audience"]

    def once(self, partner: str, proposition: str, value: str, modality: str) -> bool:
        """Whether this is new to say to the partner (and note it as said)."""
        key = f"{partner}|{proposition}|{value}|{modality}"
        if key in self.s["told"]:
            return False
        self.s["told"].append(key)
        return True

    # --- state -------------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return copy.deepcopy(self.s)

    def set_state(self, state: dict[str, Any]) -> None:
        self.s = copy.deepcopy(state)

    def drain_diagnostics(self) -> list[Any]:
        return []
