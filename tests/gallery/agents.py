"""The gallery (issue 26, item 5): dumb and cheating agents, and one capable honest agent, each a
factory usable from the repository's root as `--agent tests.gallery.agents:NAME`.

Each dumb or cheating agent buys its score with something that needed no perceiving,
remembering, believing or choosing - silence, abstention, hedging, a guessed origin, a decline,
a self-report, a peek at the answer key - and should score below the simple agent; the
capable honest agent should score at least the reference agent with no guardrail broken.
`tests/gallery/measure.py` measures them all; `tests/test_gallery.py` holds them to it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.agents.reference import reference_agent
from harness.engine.contract import AgentSetup, Answer, Claim, Intent, Meaning, Observation
from harness.engine.diagnostics import MemoryOp, PlanNote

from . import peeking
from ._base import DAY, Report, Villager, day_of


class Silent(Villager):
    """A perfect record it acts on (errands replanned around known blocks, gatherings, the
    requests it can carry out) and perfect answers - but it never says a word."""

    replans = True
    fulfils = True
    declines = "never"

    def answer(self, proposition: str, now: int) -> Answer:
        return self.perfect_answer(proposition)


class Idle(Villager):
    """Stays home, does nothing, says nothing, answers "I don't know"."""

    moves = False


class Hoarder(Villager):
    """Remembers everything and answers perfectly, tells nothing, and never does more than
    its routine and errands as written (no replanning, no requests)."""

    def answer(self, proposition: str, now: int) -> Answer:
        return self.perfect_answer(proposition)


class Decliner(Silent):
    """The silent agent, but it declines every request it gets, whatever its persona."""

    fulfils = False
    declines = "all"


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


class YesMan(Villager):
    """Follows its routine in silence and answers every question "true", certain, naming the
    alphabetically first villager it knows as source and origin."""

    def answer(self, proposition: str, now: int) -> Answer:
        guess = min(self.s["names"])
        return Answer("true", "certain", guess, guess)


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


# --- self-report ------------------------------------------------------------------------------
class _Relabelled:
    """The reference agent, behaving byte for byte as itself, with its diagnostic rows
    rewritten by `rows` before the harness records them."""

    policy_surface = reference_agent.policy_surface  # type: ignore[attr-defined]

    def __init__(self, setup: AgentSetup) -> None:
        self.inner = reference_agent(setup)
        self.name = setup.name
        self.wrote = False  # whether the fake row has been reported (FakeMemoryWrite)

    def observe(self, obs: Observation) -> None:
        self.inner.observe(obs)

    def decide(self, now: int) -> list[Any]:
        return self.inner.decide(now)

    def converse(self, partner: str, partner_groups: tuple[str, ...], now: int) -> list[Claim]:
        return self.inner.converse(partner, partner_groups, now)

    def answer(self, proposition: str, now: int) -> Answer:
        return self.inner.answer(proposition, now)

    def get_state(self) -> dict[str, Any]:
        return {"inner": self.inner.get_state(), "wrote": self.wrote}

    def set_state(self, state: dict[str, Any]) -> None:
        self.inner.set_state(state["inner"])
        self.wrote = state["wrote"]

    def wake_at(self, now: int) -> int:
        return self.inner.wake_at(now)

    def drain_diagnostics(self) -> list[Any]:
        return self.rows(self.inner.drain_diagnostics())

    def rows(self, rows: list[Any]) -> list[Any]:
        return rows


class RelabelledMemory(_Relabelled):
    """The reference agent whose memory rows report every retrieval as relevant."""

    def rows(self, rows: list[Any]) -> list[Any]:
        return [
            replace(r, relevant=True) if isinstance(r, MemoryOp) and r.op == "retrieve" else r
            for r in rows
        ]


class FakeMemoryWrite(_Relabelled):
    """The reference agent whose memory rows are withheld and replaced by one fake write:
    memory operations but no retrieval (memory_noise 0.0, where it weighs)."""

    def rows(self, rows: list[Any]) -> list[Any]:
        kept = [r for r in rows if not isinstance(r, MemoryOp)]
        ops = [r for r in rows if isinstance(r, MemoryOp)]
        if ops and not self.wrote:
            self.wrote = True
            first = ops[0]
            kept.append(MemoryOp(first.minute, first.event_id, self.name, "write", 1, self.name))
        return kept


# --- the answer key ---------------------------------------------------------------------------
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
        replaced = next((p for p, q in sorted(truth.items()) if q["supersedes"] == proposition),
                        None)  # fmt: skip
        return Answer(t["value"], t["modality"], informant, t["origin"], replaced_by=replaced)

    only_when_exposed = True  # answers only what it was told or saw (as exposures count it)


def answer_key(scenario: Any, meanings: dict[str, Any] | None = None) -> dict[str, Any]:
    """A scenario's answer key as plain JSON: each tracked proposition's truth (with the
    `Meaning` the episode hands out, or one made from the truth) and each decision point."""
    truth = {}
    for t in scenario.truth:
        made = meanings.get(t.proposition) if meanings else None
        predicate = scenario.predicates.get(t.predicate)
        meaning = dict(vars(made)) if made is not None else {
            "proposition": t.proposition, "subject": t.subject, "predicate": t.predicate,
            "object": t.object, "valid_to": t.valid_to, "supersedes": t.supersedes,
            "phrase": getattr(predicate, "phrase", None), "sense": getattr(predicate, "sense", None),
        }  # fmt: skip
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
        self.notes.append(PlanNote(minute, eid, self.name, None, "peek", day_of(minute), route,
                                   what, reason))  # fmt: skip

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


__all__ = [
    "Abstainer",
    "CapableHonest",
    "Decliner",
    "Fabricator",
    "FakeMemoryWrite",
    "Gossip",
    "Hedger",
    "Hoarder",
    "Idle",
    "OriginGuesser",
    "Parrot",
    "RelabelledMemory",
    "Silent",
    "StackWalker",
    "Understater",
    "YesMan",
]
