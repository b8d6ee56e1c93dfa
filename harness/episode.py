"""One episode: a scenario, a policy and a seed, run tick by tick into trace tables.

The tick loop (DESIGN §2) is `Episode.step`: world events and requests → sensations turned
into observations → arrivals and the actions they complete → each agent's decisions, executed
against the world → encounters and talk → probes and censuses. The harness owns the world and
records what every agent was exposed to and which decisions its actions answered; agents are
reached only through the `Agent` protocol. An episode's whole state round-trips through JSON,
so a restored run continues byte-identically.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import pyarrow as pa

from scenarios import MINUTES_PER_DAY, AgentSpec, Scenario, day_of

from .actions import REGISTRY
from .agent import ReferenceAgent
from .contract import Agent, Claim, Intent, Meaning, Observation, Request
from .rng import Draws
from .schema import TABLE_NAMES, to_table
from .simple_agent import SimpleAgent
from .speech import render
from .world import Move, World

AgentFactory = Callable[[AgentSpec, Any, Draws, int, int, int], Agent]
AGENT_KINDS: dict[str, AgentFactory] = {"reference": ReferenceAgent, "simple": SimpleAgent}


class Recorder:
    """Collects trace rows; every row carries scenario, seed, tick and the causing event id."""

    def __init__(self, scenario: str, seed: int, start: int, tick_minutes: int) -> None:
        self.scenario, self.seed = scenario, seed
        self.start, self.tick_minutes = start, tick_minutes
        self.rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLE_NAMES}

    def tick(self, minute: int) -> int:
        return (minute - self.start) // self.tick_minutes

    def add(self, table: str, minute: int, event_id: int, **columns: Any) -> None:
        self.rows[table].append(
            {
                "scenario": self.scenario,
                "seed": self.seed,
                "tick": self.tick(minute),
                "event_id": event_id,
                **columns,
            }
        )

    def tables(self) -> dict[str, pa.Table]:
        return {name: to_table(name, rows) for name, rows in self.rows.items()}


@dataclass
class Position:
    """Where the world has an agent: at a place, or on the way with an intent to finish."""

    location: str | None
    destination: str | None = None
    arrive_at: int | None = None
    intent: dict[str, Any] | None = None  # the act to carry out on arrival
    blocked: bool = False  # the way was impassable: the act fails on arrival
    passed: tuple[str, ...] = ()  # places on the way, whose signs are seen on the way


class Episode:
    def __init__(
        self,
        scenario: Scenario,
        policy: Any,
        seed: int,
        agent_kind: str | AgentFactory = "reference",
        *,
        lazy: bool = True,
    ) -> None:
        self.scenario, self.policy, self.seed = scenario, policy, seed
        self.lazy = lazy  # ask agents only when they could act (False: every tick, to compare)
        factory = AGENT_KINDS[agent_kind] if isinstance(agent_kind, str) else agent_kind
        self.draws = Draws(scenario.name, seed)
        self.world = World.from_scenario(scenario)
        self.specs = {a.id: a for a in scenario.agents}
        self.agents: dict[str, Agent] = {
            a.id: factory(
                a, policy, self.draws, scenario.start, scenario.end, scenario.tick_minutes
            )
            for a in sorted(scenario.agents, key=lambda a: a.id)
        }
        self.positions = {a.id: Position(a.home) for a in scenario.agents}
        self.meanings = {
            t.proposition: Meaning(
                t.proposition, t.subject, t.predicate, t.object, t.valid_to, t.supersedes
            )
            for t in scenario.truth
        }
        self.rec = Recorder(scenario.name, seed, scenario.start, scenario.tick_minutes)
        self.next_event = 1
        self.decided: list[str] = []  # "agent|decision point" already answered
        self.last_chat: dict[str, int] = {}  # "a|b" → minute
        self.signs: list[str] = []  # ids of signs up
        self.now = scenario.start
        self.results: list[tuple[int, str, dict[str, Any]]] = []  # (due, agent, observation)
        self.wake: dict[str, int] = {}  # agent → the next minute worth asking it to decide
        self._events = sorted(scenario.events, key=lambda e: (e.at, e.id))
        self._before, self._after = self._timeline()
        self.cursors = [0, 0]  # how far the tick loop is through each timeline
        self._started = False

    def new_event(self) -> int:
        self.next_event += 1
        return self.next_event - 1

    # --- the loop -------------------------------------------------------------------------------
    def run(self, until: int | None = None) -> dict[str, pa.Table]:
        """Run up to and including minute `until` (default: the end); returns the traces."""
        s = self.scenario
        if not self._started:
            self._started = True
            self._write_truth()
            self._snapshot(s.start, 0)
        stop = s.end if until is None else min(until, s.end)
        while self.now <= stop:
            self.step(self.now)
            self.now += s.tick_minutes
        return self.rec.tables()

    def _timeline(self) -> tuple[list[tuple[int, str, Any]], list[tuple[int, str, Any]]]:
        """What happens when: world events (daily ones repeated) and requests before the
        agents act; probes, censuses and inventory snapshots after. Derived, never state."""
        s, day = self.scenario, MINUTES_PER_DAY
        before: list[tuple[int, str, Any]] = []
        for e in self._events:
            repeats = range(e.at, s.end + 1, day) if e.daily else (e.at,)
            before.extend((at, "event", e) for at in repeats)
        before.extend((r.at, "request", r) for r in s.requests)
        after: list[tuple[int, str, Any]] = [(p.at, "probe", p) for p in s.probes]
        after.extend((m, "census", None) for m in s.census_moments)
        after.extend((m, "snapshot", None) for m in range(s.start + day, s.end, day))
        after.append((s.end, "snapshot", None))
        order = {"event": 0, "request": 1, "probe": 0, "census": 1, "snapshot": 2}
        key = lambda x: (x[0], order[x[1]], getattr(x[2], "id", ""))  # noqa: E731
        return sorted(before, key=key), sorted(after, key=key)

    def _due_items(self, which: int, now: int) -> list[tuple[int, str, Any]]:
        timeline = self._before if which == 0 else self._after
        start = self.cursors[which]
        end = start
        while end < len(timeline) and timeline[end][0] <= now:
            end += 1
        self.cursors[which] = end
        return timeline[start:end]

    def step(self, now: int) -> None:
        self.world.minute = now
        for _, kind, item in self._due_items(0, now):
            if kind == "event":
                self._world_event(item, now)
            else:
                self._request(item, now)
        while self.results and self.results[0][0] <= now:
            _, name, result = self.results.pop(0)
            self._deliver(name, Observation(**{**result, "minute": now}))
        for name in self.agents:
            pos = self.positions[name]
            if pos.arrive_at is not None and pos.arrive_at <= now:
                self._arrive(name, now)
        for name, agent in self.agents.items():
            if self.lazy and self.wake.get(name, now) > now:
                continue  # asleep, walking or at work: nothing to decide, nothing to pay
            for intent in agent.decide(now):
                self._execute(name, intent, now)
            self._drain(name)
            self.wake[name] = agent.wake_at(now)
        self._encounters(now)
        for _, kind, item in self._due_items(1, now):
            if kind == "probe":
                self._probe(item.agent, item.proposition, item.id, "probe", now)
            elif kind == "census":
                for name in self.agents:
                    for prop in sorted(self.meanings):
                        self._probe(name, prop, f"census@{self.rec.tick(now)}", "census", now)
            else:
                self._snapshot(now, 0)

    # --- state ----------------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {
            "agents": {n: a.get_state() for n, a in self.agents.items()},
            "positions": {n: asdict(p) for n, p in self.positions.items()},
            "facts": dict(self.world.facts),
            "stock": [[h, r, n] for (h, r), n in sorted(self.world.stock.items())],
            "rows": {k: list(v) for k, v in self.rec.rows.items()},
            "next_event": self.next_event,
            "decided": list(self.decided),
            "last_chat": dict(self.last_chat),
            "signs": list(self.signs),
            "now": self.now,
            "started": self._started,
            "results": [list(r) for r in self.results],
            "wake": dict(self.wake),
            "cursors": list(self.cursors),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        for name, agent_state in state["agents"].items():
            self.agents[name].set_state(agent_state)
        self.positions = {n: Position(**p) for n, p in state["positions"].items()}
        self.world.facts = dict(state["facts"])
        self.world.stock = {(h, r): n for h, r, n in state["stock"]}
        self.rec.rows = {k: [dict(row) for row in v] for k, v in state["rows"].items()}
        self.next_event, self.decided = state["next_event"], list(state["decided"])
        self.last_chat, self.signs = dict(state["last_chat"]), list(state["signs"])
        self.now, self._started = state["now"], state["started"]
        self.results = [(due, name, dict(obs)) for due, name, obs in state["results"]]
        self.wake = dict(state["wake"])
        self.cursors = list(state["cursors"])

    # --- recording --------------------------------------------------------------------------------
    def _write_truth(self) -> None:
        s = self.scenario
        for t in s.truth:
            self.rec.add(
                "truth",
                s.start,
                0,
                proposition=t.proposition,
                value=t.value,
                modality=t.modality,
                origin=t.origin,
                private=t.private,
                audience=list(s.audience(t)),
                valid_from=None if t.valid_from is None else self.rec.tick(t.valid_from),
                valid_to=None if t.valid_to is None else self.rec.tick(t.valid_to),
            )

    def _snapshot(self, now: int, eid: int) -> None:
        for holder, resource, count in self.world.inventory():
            self.rec.add(
                "state",
                now,
                eid,
                agent=holder,
                variable=f"inventory:{resource}",
                value=float(count),
            )

    def _ledger(
        self, moves: list[Move], now: int, eid: int, place: str | None, agent: str | None
    ) -> None:
        for m in moves:
            self.rec.add(
                "events",
                now,
                eid,
                kind=m.kind,
                place=place,
                agent=agent,
                detail=None,
                resource=m.resource,
                holder=m.holder,
                delta=m.delta,
            )

    def _drain(self, name: str) -> None:
        for table, row in self.agents[name].drain_diagnostics():
            row = dict(row)
            minute, eid = row.pop("minute"), row.pop("event_id")
            self.rec.add(table, minute, eid, **row)

    def _deliver(self, name: str, obs: Observation) -> None:
        """Hand an observation to an agent; the harness records it and, for a tracked
        proposition, the exposure — never relying on the agent's own account."""
        prop = obs.meaning.proposition if obs.meaning is not None else None
        self.rec.add(
            "observations",
            obs.minute,
            obs.event_id,
            agent=name,
            kind=obs.kind,
            channel=obs.channel,
            from_agent=obs.speaker,
            subject=obs.subject,
            proposition=prop,
            detail=obs.detail,
        )
        if prop is not None and obs.kind in ("notice", "claim"):
            self.rec.add(
                "exposures",
                obs.minute,
                obs.event_id,
                agent=name,
                proposition=prop,
                value=obs.value,
                modality=obs.modality,
                channel=obs.channel,
                from_agent=obs.speaker,
            )
        self.agents[name].observe(obs)
        self._drain(name)
        self.wake[name] = min(self.wake.get(name, obs.minute), obs.minute)  # news wakes

    # --- world events and requests ----------------------------------------------------------
    def _world_event(self, event: Any, now: int) -> None:
        eid = self.new_event()
        self.world.facts.update(event.sets)
        self.rec.add(
            "events",
            now,
            eid,
            kind=event.kind,
            place=event.place,
            agent=None,
            detail=json.dumps({"id": event.id, "sets": event.sets}, sort_keys=True),
        )
        if event.kind == "set_facts":
            return
        if event.kind == "supply":
            for resource, n in sorted(event.adds.items()):
                self._ledger(
                    self.world.create(resource, event.place, n), now, eid, event.place, None
                )
            for name in self.agents:  # the drop is audible
                self._deliver(
                    name, Observation("sound", now, eid, "heard", event.place, detail=event.id)
                )
            return
        if event.kind == "tell":
            claim = Claim(
                self.meanings[event.proposition],
                event.value,
                event.modality,
                event.stated_source,
                event.privacy,
                event.audience,
            )
            for listener in sorted(event.seen_by):
                self._say(event.speaker, listener, claim, now, eid)
            return
        if event.kind == "sign":
            self.signs.append(event.id)
        present = [
            n
            for n, p in self.positions.items()
            if event.place is not None and p.location == event.place
        ]
        for name in sorted(set(present) | set(event.seen_by)):
            self._perceive(name, event, now, eid)

    def _perceive(self, name: str, event: Any, now: int, eid: int) -> None:
        self._deliver(
            name,
            Observation(
                "notice",
                now,
                eid,
                event.channel,
                self.meanings[event.proposition].subject,
                meaning=self.meanings[event.proposition],
                value=event.value,
                modality=event.modality,
                privacy=event.privacy,
                audience=event.audience,
            ),
        )

    def _signs_at(self, name: str, place: str, now: int, eid: int) -> None:
        for event in self._events:
            if (
                event.id in self.signs
                and event.place == place
                and now <= (event.until if event.until is not None else self.scenario.end)
            ):
                self._perceive(name, event, now, eid)

    def _request(self, spec: Any, now: int) -> None:
        eid = self.new_event()
        request = Request(
            spec.id, spec.action, spec.item, spec.source, spec.place, spec.deadline, spec.text
        )
        self.rec.add(
            "requests",
            now,
            eid,
            request_id=spec.id,
            agent=spec.agent,
            action=spec.action,
            item=spec.item,
            place=spec.place,
            deadline=self.rec.tick(spec.deadline),
        )
        self._deliver(
            spec.agent,
            Observation(
                "request",
                now,
                eid,
                "heard",
                spec.place,
                speaker="player",
                request=request,
                detail=spec.text or None,
            ),
        )

    # --- movement and action ---------------------------------------------------------------------
    def _execute(self, name: str, intent: Intent, now: int) -> None:
        if intent.kind == "decline":  # a speech act: said where the agent stands
            self._act(name, intent, now)
            return
        pos = self.positions[name]
        here = pos.location or pos.destination
        route = self.world.route(here, intent.target) if here is not None else None
        if route is None:
            if intent.kind == "act":
                self._act(name, intent, now, reachable=False)
            return
        path, minutes = route
        stop, blocked = intent.target, False
        cost = 0
        previous = here
        walked: list[str] = []
        for place in path:  # the way stops at the first impassable place
            cost += self.world.roads[previous][place]
            previous = place
            if not self.world.passable(place):
                stop, blocked, minutes = place, True, cost
                break
            walked.append(place)
        record = asdict(intent) if intent.kind == "act" else None
        if minutes == 0 and pos.location == stop:
            pos.intent, pos.blocked = record, blocked
            self._arrive(name, now, moved=False)
            return
        passed = tuple(p for p in walked if p != stop)
        self.positions[name] = Position(None, stop, now + minutes, record, blocked, passed)

    def _arrive(self, name: str, now: int, moved: bool = True) -> None:
        pos = self.positions[name]
        intent, blocked = pos.intent, pos.blocked
        if moved:
            place = pos.destination
            self.positions[name] = Position(place)
            eid = self.new_event()
            others = sorted(
                n for n, p in self.positions.items() if p.location == place and n != name
            )
            self._deliver(
                name,
                Observation(
                    "arrival", now, eid, "seen", place or "", detail=",".join(others) or None
                ),
            )
            for seen in (*pos.passed, place or ""):
                self._signs_at(name, seen, now, eid)
        else:
            self.positions[name] = Position(pos.location)
        if intent is not None:
            self._act(name, Intent(**intent), now, reachable=not blocked)
        self._drain(name)

    def _act(self, name: str, intent: Intent, now: int, reachable: bool = True) -> None:
        eid = self.new_event()
        action = REGISTRY[intent.action or ""]
        ok = reachable and action.precondition(self.world, name, intent.target, intent.item)
        moves = action.effect(self.world, name, intent.target, intent.item) if ok else []
        dp = self._decision_point(name, intent.action or "", now)
        self.rec.add(
            "actions",
            now,
            eid,
            agent=name,
            action=intent.action,
            target=intent.target,
            plan_id=intent.plan_id,
            ok=ok,
            decision_point=None if dp is None else dp.id,
            proposition=None if dp is None else dp.proposition,
            in_line=None if dp is None else intent.target in dp.right,
            horizon=None
            if dp is None
            else self.scenario.plan_horizon // self.scenario.tick_minutes,
            request_id=intent.request_id,
        )
        self._ledger(moves, now, eid, intent.target, name)
        if ok and action.milestone:
            self.rec.add(
                "events",
                now,
                eid,
                kind="milestone",
                place=intent.target,
                agent=name,
                detail=intent.item,
            )
        self._request_outcome(name, intent, ok, now, eid)
        if ok:
            sensed = action.report(self.world, name, intent.target, intent.item)
        else:
            sensed = "the way was blocked" if not reachable else action.sensed_on_failure
        result = {
            "kind": "action_result",
            "minute": now,
            "event_id": eid,
            "channel": "did",
            "subject": intent.target,
            "ok": ok,
            "detail": sensed,
        }
        minutes = intent.minutes if intent.minutes is not None else action.minutes
        if minutes <= 0 or not ok:
            self._deliver(name, Observation(**result))
            return
        self.results.append((now + minutes, name, result))  # it is done when it is done
        self.results.sort(key=lambda r: (r[0], r[1]))

    def _request_outcome(self, name: str, intent: Intent, ok: bool, now: int, eid: int) -> None:
        """The agent sees how the request it served went: for a request with an `about`
        proposition, its final action (or a refusal) is an exposure to that outcome."""
        spec = next((r for r in self.scenario.requests if r.id == intent.request_id), None)
        if spec is None or spec.about is None or intent.action not in (spec.action, "decline"):
            return
        value = "true" if ok and intent.action == spec.action else "false"
        self._deliver(
            name,
            Observation(
                "notice",
                now,
                eid,
                "seen",
                self.meanings[spec.about].subject,
                meaning=self.meanings[spec.about],
                value=value,
            ),
        )

    def _decision_point(self, agent: str, action: str, now: int) -> Any:
        for dp in self.scenario.decision_points:
            key = f"{agent}|{dp.id}"
            if dp.action == action and dp.day == day_of(now) and key not in self.decided:
                self.decided.append(key)
                return dp
        return None

    # --- encounters and talk ------------------------------------------------------------------
    def _encounters(self, now: int) -> None:
        by_place: dict[str, list[str]] = {}
        for name, pos in self.positions.items():
            if pos.location is not None:
                by_place.setdefault(pos.location, []).append(name)
        chance, cooldown = self.scenario.encounter_chance, self.scenario.chat_cooldown
        for place in sorted(by_place):
            here = sorted(by_place[place])
            for i, a in enumerate(here):
                for b in here[i + 1 :]:
                    last = self.last_chat.get(f"{a}|{b}")
                    if last is not None and now - last < cooldown:
                        continue
                    if self.draws.uniform("encounter", a, b, now) < chance:
                        self._chat(a, b, place, now)

    def _chat(self, a: str, b: str, place: str, now: int) -> None:
        eid = self.new_event()
        self.rec.add("events", now, eid, kind="chat", place=place, agent=a, detail=b)
        self.last_chat[f"{a}|{b}"] = now
        for me, other in ((a, b), (b, a)):
            self._deliver(me, Observation("chat", now, eid, "heard", other))
        for speaker, listener in ((a, b), (b, a)):
            groups = self.specs[listener].groups
            for claim in self.agents[speaker].converse(listener, groups, now):
                self._say(speaker, listener, claim, now, eid)
            self._drain(speaker)

    def _say(self, speaker: str, listener: str, claim: Claim, now: int, eid: int) -> None:
        self.rec.add(
            "utterances",
            now,
            eid,
            speaker=speaker,
            listener=listener,
            claim_id=self.new_event(),
            proposition=claim.proposition,
            value=claim.value,
            modality=claim.modality,
            stated_source=claim.stated_source,
            privacy=claim.privacy,
            text=render(claim),
        )
        self._deliver(
            listener,
            Observation(
                "claim",
                now,
                eid,
                "told",
                claim.meaning.subject,
                meaning=claim.meaning,
                value=claim.value,
                modality=claim.modality,
                speaker=speaker,
                stated_source=claim.stated_source,
                privacy=claim.privacy,
                audience=claim.audience,
            ),
        )

    # --- probes ---------------------------------------------------------------------------------
    def _probe(self, name: str, prop: str, probe_id: str, kind: str, now: int) -> None:
        answer = self.agents[name].answer(prop, now)
        self.rec.add(
            "probes",
            now,
            self.new_event(),
            agent=name,
            probe_id=probe_id,
            kind=kind,
            proposition=prop,
            answer_value=answer.value,
            answer_modality=answer.modality,
            answer_source=answer.source,
        )


def run_episode(
    scenario: Scenario, policy: Any, seed: int, agent_kind: str | AgentFactory = "reference"
) -> dict[str, pa.Table]:
    return Episode(scenario, policy, seed, agent_kind).run()
