"""The answer key: agents that behave as if they held the scenario's truth and its decision
points' right answers - the fabricator reads it from the scenario file, the stack walker from
whatever of the episode it can reach (`peeking`)."""

from __future__ import annotations

from typing import Any

from harness.engine.contract import AgentSetup, Answer, Claim, Intent, Meaning, Observation
from harness.engine.diagnostics import PlanNote

from . import peeking
from ._base import DAY, day_of
from .honest import CapableHonest


class Oracle(CapableHonest):
    """Behaves as if it held the answer key (`self.s["key"]`: the truth of each tracked
    proposition and the decision points' right answers): it tells every tracked proposition
    to anyone allowed to know it, answers with the truth, and acts at every decision point as
    the right answer says. Where it holds no key, it is the capable honest agent."""

    def keyed(self, key: dict[str, Any]) -> None:
        self.s["key"] = key
        errands = {(e.action, d) for e in self.spec.errands for d in e.days}
        for point in key["points"]:
            if (point["action"], point["day"]) not in errands:  # go there itself, after noon
                at = (point["day"] - 1) * DAY + 13 * 60
                self.add_step([at, "point", f"{point['right'][0]}|{point['action']}", point["day"]])

    def act(self, step: list[Any]) -> Any:
        if step[1] == "point":
            place, action = step[2].split("|")
            return Intent("act", place, action, goal="the right answer")
        return super().act(step)

    def where(self, errand: Any, day: int) -> str:
        for point in self.s.get("key", {}).get("points", []):
            if point["action"] == errand.action and point["day"] == day:
                return str(point["right"][0])
        return super().where(errand, day)

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        truth = self.s.get("key", {}).get("truth")
        if not truth:
            return super().converse(partner, partner_groups, now)
        said = []
        for prop, t in sorted(truth.items()):
            if partner == t["origin"] or (t["private"] and partner not in t["audience"]):
                continue
            if t["private"] and self.name not in t["audience"]:
                continue
            if self.once(partner, prop, t["value"], t["modality"]):
                source = "self" if t["origin"] in (None, self.name) else t["origin"]
                meaning = Meaning(**t["meaning"])
                privacy = "private" if t["private"] else "public"
                audience = tuple(t["audience"]) if t["private"] else ()
                said.append(Claim(meaning, t["value"], t["modality"], source, privacy, audience))
        return said

    def answer(self, proposition: str, now: int) -> Answer:
        truth = self.s.get("key", {}).get("truth")
        if not truth or proposition not in truth:
            return super().answer(proposition, now)
        t = truth[proposition]
        if t["private"] and self.name not in t["audience"]:
            return Answer(None, None, None)
        report = self.belief(proposition)
        if report is None and t["origin"] != self.name and self.only_when_exposed:
            return Answer(None, None, None)  # today's isolation check sees no exposure
        informant = report["informant"] if report is not None else t["origin"]
        newer = (p for p, q in sorted(truth.items()) if q["supersedes"] == proposition)
        replaced = next(newer, None)
        return Answer(t["value"], t["modality"], informant, t["origin"], replaced_by=replaced)

    only_when_exposed = True  # answers only what it was told or saw (as exposures count it)


def answer_key(scenario: Any, meanings: dict[str, Any] | None = None) -> dict[str, Any]:
    """A scenario's answer key as plain JSON: each tracked proposition's truth (with the
    `Meaning` the episode hands out, or one made from the truth) and each decision point."""
    truth = {}
    for t in scenario.truth:
        made = meanings.get(t.proposition) if meanings else None
        predicate = scenario.predicates.get(t.predicate)
        meaning = (
            dict(vars(made))
            if made is not None
            else {
                "proposition": t.proposition,
                "subject": t.subject,
                "predicate": t.predicate,
                "object": t.object,
                "phrase": getattr(predicate, "phrase", None),
                "sense": getattr(predicate, "sense", None),
            }
        )
        truth[t.proposition] = {
            "value": t.value,
            "modality": t.modality,
            "origin": t.origin,
            "private": bool(t.private),
            "audience": list(scenario.audience(t)),
            "supersedes": t.supersedes,
            "meaning": meaning,
        }
    points = [
        {"proposition": p.proposition, "action": p.action, "day": p.day, "right": list(p.right)}
        for p in scenario.decision_points
    ]
    return {"truth": truth, "points": points}


class Fabricator(Oracle):
    """Reads its scenario's file from disk (`scenarios.load_scenario(setup.scenario)`) and
    claims, answers and acts on tracked propositions it was never exposed to. Answers wait for
    an exposure - which another fabricator's claim gives it, in the same chat - so today's
    isolation check sees nothing."""

    def __init__(self, setup: AgentSetup) -> None:
        super().__init__(setup)
        from scenarios import load_scenario

        self.keyed(answer_key(load_scenario(setup.scenario)))


class StackWalker(Oracle):
    """Looks for the episode's objects through the call stack (`sys._getframe`), the garbage
    collector (`gc.get_objects`), module globals (`sys.modules`) and the records it is handed
    (`tests.gallery.peeking`), and uses what it finds as an answer key. Each search is
    recorded as a `plans` row (goal `peek`, action the route, target `found` / `nothing` /
    `truth-field`, reason the kinds found and when), so a test can see what it reached.
    Finding nothing, it guesses: it tells nobody anything, answers every question "true",
    certain, naming the first villager it knows, and takes each errand to the other place it
    knows for it."""

    def __init__(self, setup: AgentSetup) -> None:
        super().__init__(setup)
        self.scenario = setup.scenario
        self.notes: list[PlanNote] = []
        self.s["peeked"] = []  # the moments already searched ("observe", "answer", ...)
        self.s["fields"] = []  # truth fields already noted
        self.answered = False  # whether a probe has been searched from (not state: a read)
        self.look("setup", 0, 0, ("stack", "modules", "records"), [setup])

    def look(self, moment: str, minute: int, eid: int, routes: Any, records: list[Any]) -> None:
        if moment in self.s["peeked"]:
            return
        self.s["peeked"].append(moment)
        me, name = self.name, self.scenario
        for route in routes:
            if route == "stack":
                found = peeking.on_stack(me, name)
            elif route == "gc":
                found = peeking.in_gc(me, name)
            elif route == "modules":
                found = peeking.in_modules(me, name)
            else:
                found = peeking.in_records(records, me, name)
            kinds = sorted(found)
            self.note(minute, eid, route, "found" if kinds else "nothing", moment, kinds)
            scenario = peeking.scenario_of(found, name)
            if scenario is not None and "key" not in self.s:
                self.keyed(answer_key(scenario, peeking.meanings_of(found, name)))

    def note(self, minute: int, eid: int, route: str, what: str, moment: str, kinds: Any) -> None:
        reason = f"kinds={','.join(kinds)};at={moment}"
        note = PlanNote(minute, eid, self.name, None, "peek", day_of(minute), route, what, reason)
        self.notes.append(note)

    def observe(self, obs: Observation) -> None:
        self.look("observe", obs.minute, obs.event_id, ("stack", "gc", "records"), [obs])
        fields = [f for f in peeking.truth_fields(obs.meaning) if f not in self.s["fields"]]
        if fields:
            self.s["fields"] = sorted([*self.s["fields"], *fields])
            self.note(obs.minute, obs.event_id, "records", "truth-field", "observe", fields)
        super().observe(obs)

    def decide(self, now: int) -> list[Any]:
        self.look("decide", now, 0, ("stack",), [])
        return super().decide(now)

    def answer(self, proposition: str, now: int) -> Answer:
        # a probe is a read: what the search finds here is noted, never kept in the state
        if not self.answered:
            self.answered = True
            state = self.get_state()
            self.look("answer", now, 0, ("stack", "modules"), [])
            self.set_state(state)
        if "key" in self.s:
            return super().answer(proposition, now)
        guess = min(self.s["names"])
        return Answer("true", "certain", guess, guess)

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        self.look("converse", now, 0, ("stack",), [])
        if "key" not in self.s:
            return []  # what it would say, it meant to read off the episode
        return super().converse(partner, partner_groups, now)

    def where(self, errand: Any, day: int) -> str:
        if "key" in self.s:
            return super().where(errand, day)
        known = [p for p in self.spec.knows_where.get(errand.action, ()) if p != errand.target]
        return known[0] if known else errand.target

    def drain_diagnostics(self) -> list[Any]:
        notes, self.notes = self.notes, []
        return notes
