"""One episode: a scenario, a policy and a seed, run tick by tick into trace tables.

Per tick (DESIGN §2): world events → arrivals and their actions → scheduled decisions (plans,
errands, routine moves) → encounters and talk → probes and censuses. All state changes happen
here, at tick boundaries; the agents' mutating methods are called from nowhere else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from scenarios import MINUTES_PER_DAY, Scenario, clock_of, day_of

from .actions import REGISTRY
from .agent import PlanEntry, ReferenceAgent
from .beliefs import Belief
from .contract import Claim, Meaning
from .rng import Draws
from .schema import TABLE_NAMES, to_table
from .speech import render
from .world import World

JITTER_STEPS = 7  # routine slots start up to 6 ticks late, by the seed
ACTIVITY_MINUTES = 15


class Recorder:
    """Collects trace rows; every row carries scenario, seed, tick and the causing event id."""

    def __init__(self, scenario: str, seed: int, start: int, tick_minutes: int) -> None:
        self.scenario, self.seed = scenario, seed
        self.start, self.tick_minutes = start, tick_minutes
        self.rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLE_NAMES}

    def tick(self, minute: int) -> int:
        return (minute - self.start) // self.tick_minutes

    def add(self, table: str, minute: int, event_id: int, **columns: Any) -> None:
        self.rows[table].append({"scenario": self.scenario, "seed": self.seed,
                                 "tick": self.tick(minute), "event_id": event_id, **columns})

    def tables(self) -> dict[str, pa.Table]:
        return {name: to_table(name, rows) for name, rows in self.rows.items()}


@dataclass(frozen=True)
class Scheduled:
    minute: int
    agent: str
    kind: str  # plan / errand / move
    payload: Any


class Episode:
    def __init__(self, scenario: Scenario, policy: Any, seed: int) -> None:
        self.scenario, self.policy, self.seed = scenario, policy, seed
        self.draws = Draws(scenario.name, seed)
        self.world = World.from_scenario(scenario)
        self.specs = {a.id: a for a in scenario.agents}
        self.agents = {a.id: ReferenceAgent(a.id, a.home, a.groups, policy)
                       for a in sorted(scenario.agents, key=lambda a: a.id)}
        self.meanings = {t.proposition: Meaning(t.proposition, t.subject, t.predicate, t.object)
                         for t in scenario.truth}
        self.tracked = set(self.meanings)
        self.rec = Recorder(scenario.name, seed, scenario.start, scenario.tick_minutes)
        self.next_event = 1
        self.decided: set[tuple[str, str]] = set()  # (agent, decision point) already answered
        self.schedule = self._build_schedule()

    def new_event(self) -> int:
        self.next_event += 1
        return self.next_event - 1

    # --- set-up ----------------------------------------------------------------------------------
    def _build_schedule(self) -> list[Scheduled]:
        s, out = self.scenario, []
        first_day, last_day = day_of(s.start), day_of(s.end)
        for name in self.agents:
            spec = self.specs[name]
            for day in range(first_day, last_day + 1):
                base = (day - 1) * MINUTES_PER_DAY
                out.append(Scheduled(base + spec.plan_at, name, "plan", day + 1))
                for errand in spec.errands:
                    if day in errand.days:
                        out.append(Scheduled(base + errand.at, name, "errand", (errand, day)))
                for i, slot in enumerate(spec.routine):
                    late = int(self.draws.uniform("routine", name, day, i) * JITTER_STEPS)
                    place = self.draws.choice(slot.go, "routine-place", name, day, i)
                    at = base + slot.at + late * s.tick_minutes
                    out.append(Scheduled(at, name, "move", place))
                    out.extend(Scheduled(at + ACTIVITY_MINUTES * k, name, "activity", place)
                               for k in range(1, slot.activities + 1))
        kinds = {"plan": 0, "errand": 1, "move": 2, "activity": 3}
        out = [x for x in out if s.start <= x.minute <= s.end]
        out.sort(key=lambda x: (x.minute, kinds[x.kind], x.agent))
        return out

    # --- the loop -------------------------------------------------------------------------------
    def run(self) -> dict[str, pa.Table]:
        s = self.scenario
        self._write_truth()
        for name in self.agents:  # the first day's plans, made before anything happens
            self._plan(name, day_of(s.start), s.start)
        events = sorted(s.events, key=lambda e: (e.at, e.id))
        census = set(s.census_moments)
        probes = sorted(s.probes, key=lambda p: (p.at, p.id))
        cursor = ev_cursor = probe_cursor = 0
        step = s.tick_minutes
        for now in range(s.start, s.end + 1, step):
            while ev_cursor < len(events) and events[ev_cursor].at <= now:
                self._world_event(events[ev_cursor], now)
                ev_cursor += 1
            for name, agent in self.agents.items():
                if agent.arrive_at is not None and agent.arrive_at <= now:
                    self._arrive(agent, now)
            while cursor < len(self.schedule) and self.schedule[cursor].minute <= now:
                self._decide(self.schedule[cursor], now)
                cursor += 1
            self._encounters(now)
            while probe_cursor < len(probes) and probes[probe_cursor].at <= now:
                p = probes[probe_cursor]
                self._probe(p.agent, p.proposition, p.id, "probe", now)
                probe_cursor += 1
            if now in census:
                for name in self.agents:
                    for prop in sorted(self.tracked):
                        self._probe(name, prop, f"census@{self.rec.tick(now)}", "census", now)
        return self.rec.tables()

    def _write_truth(self) -> None:
        s = self.scenario
        for t in s.truth:
            self.rec.add("truth", s.start, 0, proposition=t.proposition, value=t.value,
                         modality=t.modality, origin=t.origin, private=t.private,
                         audience=list(s.audience(t)),
                         valid_from=None if t.valid_from is None else self.rec.tick(t.valid_from),
                         valid_to=None if t.valid_to is None else self.rec.tick(t.valid_to))

    # --- world events and perception -------------------------------------------------------------
    def _world_event(self, event: Any, now: int) -> None:
        eid = self.new_event()
        self.world.facts.update(event.sets)
        self.rec.add("events", now, eid, kind=event.kind, place=event.place, agent=None,
                     detail=json.dumps({"id": event.id, "sets": event.sets}, sort_keys=True))
        if event.kind != "notice":
            return
        present = [n for n, a in self.agents.items()
                   if event.place is not None and a.location == event.place]
        for name in sorted(set(present) | set(event.seen_by)):
            self._perceive_fact(self.agents[name], event.proposition, event.value,
                                event.channel, None, "certain", now, eid)

    def _perceive_fact(self, agent: ReferenceAgent, prop: str, value: str, channel: str,
                       speaker: str | None, modality: str, now: int, eid: int,
                       stated_source: str | None = None) -> None:
        meaning = self.meanings[prop]
        if prop in self.tracked:
            self.rec.add("exposures", now, eid, agent=agent.name, proposition=prop, value=value,
                         modality=modality, channel=channel, from_agent=speaker)
        origin = None
        if speaker is not None:
            origin = speaker if stated_source in (None, "self") else stated_source
        exp, evicted = agent.remember(now, eid, channel=channel, subject=meaning.subject,
                                      importance=0.7, proposition=prop, value=value,
                                      modality=modality, told_by=speaker, origin=origin)
        for b in agent.forget(evicted):
            self._belief_row(agent, b, now, eid)
        belief = agent.update_belief(exp, meaning)
        if belief is not None:
            self._belief_row(agent, belief, now, eid)
            for plan in agent.replan_for(belief, self.specs[agent.name].errands):
                self._plan_row(agent, plan, now, eid)

    def _belief_row(self, agent: ReferenceAgent, b: Belief, now: int, eid: int) -> None:
        self.rec.add("beliefs", now, eid, agent=agent.name, proposition=b.proposition,
                     value=b.value, confidence=b.confidence, modality=b.modality,
                     origin=b.origin, told_by=b.told_by, status=b.status)

    def _plan_row(self, agent: ReferenceAgent, plan: PlanEntry, now: int, eid: int) -> None:
        self.rec.add("events", now, eid, kind="plan", place=plan.target, agent=agent.name,
                     detail=json.dumps({"errand": plan.errand, "day": plan.day,
                                        "plan_id": plan.plan_id, "reason": plan.reason},
                                       sort_keys=True))

    def _notice(self, agent: ReferenceAgent, now: int, eid: int, subject: str,
                importance: float) -> None:
        """An everyday experience with no tracked proposition: the stuff of retrieval noise."""
        _, evicted = agent.remember(now, eid, channel="seen", subject=subject,
                                    importance=importance)
        for b in agent.forget(evicted):
            self._belief_row(agent, b, now, eid)

    # --- decisions and actions -------------------------------------------------------------------
    def _plan(self, name: str, day: int, now: int) -> None:
        agent = self.agents[name]
        for errand in self.specs[name].errands:
            if day in errand.days:
                eid = self.new_event()
                self._plan_row(agent, agent.plan_errand(errand, day, now, self.draws), now, eid)

    def _decide(self, item: Scheduled, now: int) -> None:
        agent = self.agents[item.agent]
        if item.kind == "plan":
            self._plan(item.agent, item.payload, now)
        elif item.kind == "errand":
            errand, day = item.payload
            plan = agent.plans.get(f"{errand.id}@{day}")
            if plan is not None:
                self._go(agent, plan.target, now, pending=f"{errand.id}@{day}")
        elif item.kind == "activity":
            if agent.location == item.payload:
                importance = 0.1 + 0.2 * self.draws.uniform("activity", agent.name, now)
                self._notice(agent, now, self.new_event(), item.payload, round(importance, 3))
        elif agent.pending_action is None:  # a routine move never interrupts an errand
            self._go(agent, item.payload, now)

    def _go(self, agent: ReferenceAgent, place: str, now: int, pending: str | None = None) -> None:
        start = agent.location or agent.destination or agent.home
        minutes = self.world.travel_minutes(start, place)
        if minutes is None:
            return
        agent.pending_action = pending
        if minutes == 0 and agent.location == place:
            if pending is not None:
                self._arrive(agent, now)
            return
        agent.location, agent.destination, agent.arrive_at = None, place, now + minutes

    def _arrive(self, agent: ReferenceAgent, now: int) -> None:
        if agent.destination is not None:
            agent.location, agent.destination, agent.arrive_at = agent.destination, None, None
            self._notice(agent, now, self.new_event(), agent.location, 0.1)
        if agent.pending_action is None:
            return
        plan = agent.plans[agent.pending_action]
        agent.pending_action = None
        self._act(agent, plan, now)

    def _act(self, agent: ReferenceAgent, plan: PlanEntry, now: int) -> None:
        eid = self.new_event()
        action = REGISTRY[plan.action]
        ok = action.precondition(self.world, plan.target)
        dp = self._decision_point(agent.name, plan.action, now)
        in_line = None if dp is None else plan.target in dp.right
        self.rec.add("actions", now, eid, agent=agent.name, action=plan.action, target=plan.target,
                     plan_id=plan.plan_id, ok=ok, decision_point=None if dp is None else dp.id,
                     proposition=None if dp is None else dp.proposition, in_line=in_line)
        self._notice(agent, now, eid, plan.target, 0.3 if ok else 0.5)
        if ok:
            return
        # the senses report only the failure; the agent falls back on an alternative
        self.rec.add("events", now, eid, kind="action_failed", place=plan.target,
                     agent=agent.name, detail=action.sensed_on_failure)
        errand = next(e for e in self.specs[agent.name].errands if e.id == plan.errand)
        fallback = next((a for a in errand.alternatives if a != plan.target), None)
        if fallback is not None:
            agent.plans[f"{plan.errand}@{plan.day}"] = PlanEntry(
                plan.errand, plan.day, plan.action, fallback, agent.next_plan_id, "fallback")
            agent.next_plan_id += 1
            self._go(agent, fallback, now, pending=f"{plan.errand}@{plan.day}")

    def _decision_point(self, agent: str, action: str, now: int) -> Any:
        for dp in self.scenario.decision_points:
            if dp.action == action and dp.day == day_of(now) and (agent, dp.id) not in self.decided:
                self.decided.add((agent, dp.id))
                return dp
        return None

    # --- encounters and talk ------------------------------------------------------------------
    def _encounters(self, now: int) -> None:
        by_place: dict[str, list[str]] = {}
        for name, agent in self.agents.items():
            if agent.location is not None:
                by_place.setdefault(agent.location, []).append(name)
        chance, cooldown = self.scenario.encounter_chance, self.scenario.chat_cooldown
        for place in sorted(by_place):
            here = by_place[place]
            for i, a in enumerate(here):
                for b in here[i + 1:]:
                    last = self.agents[a].last_chat.get(b)
                    if last is not None and now - last < cooldown:
                        continue
                    if self.draws.uniform("encounter", a, b, now) < chance:
                        self._chat(self.agents[a], self.agents[b], place, now)

    def _chat(self, a: ReferenceAgent, b: ReferenceAgent, place: str, now: int) -> None:
        eid = self.new_event()
        self.rec.add("events", now, eid, kind="chat", place=place, agent=a.name, detail=b.name)
        a.last_chat[b.name] = b.last_chat[a.name] = now
        self._notice(a, now, eid, b.name, 0.1)
        self._notice(b, now, eid, a.name, 0.1)
        for speaker, listener in ((a, b), (b, a)):
            for claim in speaker.claims_for(listener.name, listener.groups, now, self.draws):
                self._deliver(speaker, listener, claim, now, eid)

    def _deliver(self, speaker: ReferenceAgent, listener: ReferenceAgent, claim: Claim,
                 now: int, eid: int) -> None:
        self.rec.add("utterances", now, eid, speaker=speaker.name, listener=listener.name,
                     claim_id=self.new_event(), proposition=claim.proposition, value=claim.value,
                     modality=claim.modality, stated_source=claim.stated_source,
                     privacy=claim.privacy, text=render(claim))
        speaker.mark_told(listener.name, claim.proposition)
        if claim.proposition not in self.meanings:
            self.meanings[claim.proposition] = claim.meaning
        self._perceive_fact(listener, claim.proposition, claim.value, "told", speaker.name,
                            claim.modality, now, eid, stated_source=claim.stated_source)

    # --- probes ---------------------------------------------------------------------------------
    def _probe(self, name: str, prop: str, probe_id: str, kind: str, now: int) -> None:
        answer = self.agents[name].answer(prop)
        self.rec.add("probes", now, self.new_event(), agent=name, probe_id=probe_id, kind=kind,
                     proposition=prop, answer_value=answer.value,
                     answer_modality=answer.modality, answer_source=answer.source)


def run_episode(scenario: Scenario, policy: Any, seed: int) -> dict[str, pa.Table]:
    return Episode(scenario, policy, seed).run()


__all__ = ["Episode", "Recorder", "run_episode", "clock_of"]
