"""One episode: a scenario, a policy and a seed, run tick by tick into trace tables.

The tick loop (design §2) is `Episode.step`: world events and requests → sensations turned
into observations → arrivals and the actions they complete → each agent's decisions, executed
against the world → encounters and talk → probes and censuses. The harness owns the world and
records what every agent was exposed to and which decisions its actions answered; agents are
reached only through the `Agent` protocol. An episode's whole state round-trips through JSON,
so a restored run continues byte-identically.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Self

import pyarrow as pa

from scenarios import MINUTES_PER_DAY, AgentSpec, Scenario, WorldEvent
from scenarios.model import Predicate

from . import boundary, diagnostics, ground_truth, plugins
from .acting import Acting
from .actions import registry_for
from .budget import Budget, alarm
from .collecting import rare_collections
from .contract import (
    Agent,
    AgentFactory,
    AgentSetup,
    EpisodeStop,
    Intent,
    Meaning,
    Observation,
    ObservationKind,
)
from .conversations import Conversations, said_at
from .declared import declarations_of
from .diagnostics import INVENTORY
from .encounters import Encounters
from .happenings import Happenings
from .positions import Position, Whereabouts
from .recorder import Recorder
from .rng import Draws
from .tick import Tick
from .wakes import Wakes
from .world import World

# kinds that expose a proposition
EXPOSING = (ObservationKind.NOTICE, ObservationKind.CLAIM, ObservationKind.LINE)
# the columns `_deliver` fills, past the key columns (a test holds them to the schema)
OBSERVED = ("agent", "kind", "channel", "from_agent", "subject", "proposition", "detail")
EXPOSED = ("agent", "proposition", "value", "modality", "channel", "from_agent")


def setup_for(scenario: Scenario, spec: AgentSpec, policy: Any, seed: int) -> AgentSetup:
    """What one agent of a scenario is given at the start of an episode on `seed`."""
    return AgentSetup(
        scenario.name,
        spec,
        policy,
        Draws(scenario.name, seed),
        scenario.start,
        scenario.end,
        scenario.tick_minutes,
    )


class Episode:
    """One episode's tick loop, composed of parts that each own their state - `Wakes` (who
    decides when), `Acting` (walks, actions and their results), `Happenings` (world events,
    requests, probes), `Encounters` (chats and what is said in them) and `Conversations`
    (dialogue with people outside) - sharing one `Tick`. The episode keeps what they all
    touch: the world, what each agent was exposed to, the event counter and the recorder."""

    def __init__(
        self,
        scenario: Scenario,
        policy: Any,
        seed: int,
        agent: str | AgentFactory,
        *,
        lazy: bool = True,
    ) -> None:
        self.scenario, self.policy, self.seed = scenario, policy, seed
        self.lazy = lazy  # ask agents only when they could act (False: every tick, to compare)
        self.draws = Draws(scenario.name, seed)
        self.world = World.from_scenario(scenario)
        self.specs = {a.id: a for a in scenario.agents}
        setups = [
            setup_for(scenario, a, policy, seed)
            for a in sorted(scenario.agents, key=lambda a: a.id)
        ]
        positions = Whereabouts((a.id, Position(a.home)) for a in scenario.agents)
        actions = registry_for(scenario)  # the engine's actions and the scenario's physics
        vocabulary = scenario.predicates
        self.meanings = {
            t.proposition: Meaning(
                t.proposition,
                t.subject,
                t.predicate,
                t.object,
                phrase=vocabulary[t.predicate].phrase if t.predicate in vocabulary else None,
                sense=vocabulary[t.predicate].sense if t.predicate in vocabulary else None,
                priority=_priority(vocabulary.get(t.predicate)),
                changes=t.values is not None,
            )
            for t in scenario.truth
        }
        self.origins = {t.proposition: t.starts_with for t in scenario.truth}
        # (agent, tracked proposition) pairs exposed so far: what an agent's claim may rest on
        self.exposed: set[tuple[str, str]] = set()
        self.rec = Recorder(scenario.name, seed, scenario.start, scenario.tick_minutes)
        self.next_event = 1
        # agents by number (their sorted order): wakes and pairs are ints
        self.number = {s.name: i for i, s in enumerate(setups)}
        self.now = scenario.start
        self.wakes = Wakes(self.number, self.now, scenario.end)
        self._before, self._after = self._timeline()
        self.cursors = [0, 0]  # how far the tick loop is through each timeline
        self._started = False
        self._dialogue = scenario.dialogue is not None  # characters may speak first
        # the agents last, once nothing else can fail: their processes, if any, end with it
        self.agents: dict[str, Agent]
        if isinstance(agent, str) and boundary.isolated(agent):
            # each agent in its own process, handed only contract records (boundary.py)
            remote = boundary.start(agent, setups)
            self.agents = dict(remote)
            self.rec.declare(boundary.declarations(remote.values()))
        else:
            # an import path is resolved here, where the episode runs (a Ray worker, too)
            factory = plugins.load(agent) if isinstance(agent, str) else agent
            self.rec.declare(declarations_of(factory))
            self.agents = {s.name: factory(s) for s in setups}
        tick = Tick(
            scenario,
            self.rec,
            self.draws,
            self.agents,
            self.specs,
            self.meanings,
            self.new_event,
            self._deliver,
            self._drain,
        )
        self.talk = Conversations(tick)
        self.encounters = Encounters(tick, self.number, self.exposed, self.origins)
        self.happenings = Happenings(tick, self.world, self.encounters)
        self.acting = Acting(tick, self.world, actions, positions, self.happenings.signs_at)

    def close(self) -> None:
        """End the agents' processes, if they have their own (nothing to do otherwise)."""
        boundary.close(self.agents.values())

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def new_event(self) -> int:
        self.next_event += 1
        return self.next_event - 1

    # --- the loop -------------------------------------------------------------------------------
    def run(self, until: int | None = None, budget: Budget | None = None) -> dict[str, pa.Table]:
        """Run up to and including minute `until` (default: the end); returns the traces.
        With a `budget`, BudgetExceeded stops an episode that runs out of time or memory."""
        s = self.scenario
        watch = budget.watch(boundary.pids(self.agents.values())) if budget is not None else None
        if not self._started:
            self._started = True
            ground_truth.write(self.rec, s)
            self.talk.setup()
            self._snapshot(s.start, 0)
        stop = s.end if until is None else min(until, s.end)
        try:
            with rare_collections():
                while self.now <= stop:
                    self.step(self.now)
                    self.now += s.tick_minutes
                    if watch is not None:
                        watch.check()
        except EpisodeStop as stopped:  # an agent's stop or a spent budget
            # what the episode spent before it stopped still counts (the model calls paid for)
            for name in sorted(self.agents):
                self._drain(name)
            stopped.spent = diagnostics.usage(self.rec.tables())
            raise
        tables: dict[str, pa.Table] = self.rec.tables()
        return tables

    def _timeline(self) -> tuple[list[tuple[int, str, Any]], list[tuple[int, str, Any]]]:
        """What happens when: world events (daily ones repeated) and requests before the
        agents act; probes, censuses and inventory snapshots after. Derived, never state."""
        s, day = self.scenario, MINUTES_PER_DAY
        before: list[tuple[int, str, Any]] = []
        for e in sorted(s.events, key=lambda e: (e.at, e.id)):
            repeats = range(e.at, s.end + 1, day) if e.daily else (e.at,)
            before.extend((at, "event", e) for at in repeats)
        before.extend((o.at, "event", o) for o in origin_notices(s))
        before.extend((r.at, "request", r) for r in s.requests)
        lines = s.dialogue.lines if s.dialogue else ()
        before.extend((said_at(s, self.draws, x), "line", x) for x in lines)
        after: list[tuple[int, str, Any]] = [(p.at, "probe", p) for p in s.probes]
        after.extend((m, "census", None) for m in s.census_moments)
        after.extend((m, "snapshot", None) for m in range(s.start + day, s.end, day))
        after.append((s.end, "snapshot", None))
        order = {"event": 0, "request": 1, "line": 2, "probe": 0, "census": 1, "snapshot": 2}
        key = lambda x: (x[0], order[x[1]], getattr(x[2], "id", ""))
        return sorted(before, key=key), sorted(after, key=key)

    def _due_items(self, which: int, now: int) -> list[tuple[int, str, Any]]:
        timeline = self._before if which == 0 else self._after
        start = self.cursors[which]
        if start >= len(timeline) or timeline[start][0] > now:
            return []  # the common tick: nothing scheduled
        end = start
        while end < len(timeline) and timeline[end][0] <= now:
            end += 1
        self.cursors[which] = end
        return timeline[start:end]

    def step(self, now: int) -> None:
        self.world.minute = now
        before, after, cursors = self._before, self._after, self.cursors
        # the common tick has nothing scheduled: seen here, without a call
        if cursors[0] < len(before) and before[cursors[0]][0] <= now:
            for _, kind, item in self._due_items(0, now):
                if kind == "event":
                    self.happenings.world_event(item, now, self.positions)
                elif kind == "line":
                    self.talk.line(item, now)
                else:
                    self.happenings.request(item, now)
        self.acting.results_and_arrivals(now)
        self._decisions(now)
        self.encounters.meet(now, self.positions)
        if cursors[1] < len(after) and after[cursors[1]][0] <= now:
            ask = self.happenings.probe
            for _, kind, item in self._due_items(1, now):
                if kind == "probe":
                    kind = "probe" if item.asks == "current" else "probe_replaced"
                    ask(item.agent, item.proposition, item.id, kind, now)
                elif kind == "census":
                    census = f"census@{self.rec.tick(now)}"
                    for name in self.agents:
                        for prop in sorted(self.meanings):
                            ask(name, prop, census, "census", now)
                else:
                    self._snapshot(now, 0)

    # --- state ----------------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        pair_name = self.encounters.pair_name
        return {
            "agents": {n: a.get_state() for n, a in self.agents.items()},
            "positions": {n: asdict(p) for n, p in self.positions.items()},
            "facts": dict(self.world.facts),
            "stock": [[h, r, n] for (h, r), n in sorted(self.world.stock.items())],
            "rows": self.rec.get_state(),
            "next_event": self.next_event,
            "decided": list(self.acting.decided),
            "exposed": sorted(self.exposed),
            "last_chat": {pair_name(k): m for k, m in sorted(self.encounters.last_chat.items())},
            "signs": list(self.happenings.signs),
            "last_line": dict(self.talk.last_line),
            "now": self.now,
            "started": self._started,
            "results": [[d, name, result] for d, name, _, result in sorted(self.acting.results)],
            "wake": dict(self.wakes.wake),
            "cursors": list(self.cursors),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        for name, agent_state in state["agents"].items():
            self.agents[name].set_state(agent_state)
        self.acting.positions = Whereabouts(
            (n, Position(**{**p, "passed": tuple(p["passed"])}))
            for n, p in state["positions"].items()
        )
        self.world.facts = dict(state["facts"])
        self.world.stock = {(h, r): n for h, r, n in state["stock"]}
        self.rec.set_state(state["rows"])
        self.next_event = state["next_event"]
        self.acting.decided = dict.fromkeys(state["decided"])
        self.exposed.clear()  # the very set the encounters read
        self.exposed.update((a, p) for a, p in state["exposed"])
        pair = self.encounters.pair
        self.encounters.last_chat = {pair(*k.split("|")): m for k, m in state["last_chat"].items()}
        self.happenings.signs = list(state["signs"])
        self.talk.last_line = dict(state.get("last_line", {}))
        self.now, self._started = state["now"], state["started"]
        self.acting.results = []
        for due, name, obs in state["results"]:
            self.acting.schedule(due, name, dict(obs))
        self.wakes.rewind(state["wake"], self.now)
        self.cursors = list(state["cursors"])

    # --- deciding -------------------------------------------------------------------------------
    def _decisions(self, now: int) -> None:
        """Each agent awake decides, in name order (`Wakes`). Asleep, walking or at work costs
        nothing; `lazy=False` asks every agent every tick, to compare."""
        if not self.lazy:
            for name, agent in self.agents.items():
                self._decide(name, agent, now)
            return
        agents = self.agents
        self.wakes.each_due(now, lambda name: self._decide(name, agents[name], now))

    def _decide(self, name: str, agent: Agent, now: int) -> None:
        for intent in agent.decide(now):
            self._execute(name, intent, now)
        self._drain(name)
        if self._dialogue:
            self.talk.unprompted(name, now)
        self.wakes.set(name, agent.wake_at(now))

    @property
    def positions(self) -> Whereabouts:
        """Where each agent is (`Acting` owns them)."""
        return self.acting.positions

    def _execute(self, name: str, intent: Intent, now: int) -> None:
        """An agent's intent carried out (a world of one's own may do more: a subclass)."""
        self.acting.execute(name, intent, now)

    # --- recording --------------------------------------------------------------------------------
    def _snapshot(self, now: int, eid: int) -> None:
        for holder, resource, count in self.world.inventory():
            self.rec.add(
                "state",
                now,
                eid,
                agent=holder,
                variable=f"{INVENTORY}{resource}",
                value=float(count),
            )

    def _drain(self, name: str) -> None:
        """Record an agent's diagnostic rows: typed rows of the internal tables only."""
        rows = self.agents[name].drain_diagnostics()
        if rows:  # mostly not: nothing written inside the agent
            diagnostics.record(name, rows, self.rec)

    def _deliver(self, name: str, obs: Observation) -> None:
        """Hand an observation to an agent; the harness records it and, for a tracked
        proposition, the exposure — never relying on the agent's own account."""
        prop = obs.meaning.proposition if obs.meaning is not None else None
        minute, eid, add = obs.minute, obs.event_id, self.rec.add_row
        # the rows' values in their tables' column order (OBSERVED, EXPOSED): the hottest rows
        add(
            "observations",
            (minute, eid, name, obs.kind, obs.channel, obs.speaker, obs.subject, prop, obs.detail),
        )
        if prop is not None and obs.kind in EXPOSING and prop in self.meanings:
            add(
                "exposures",
                (minute, eid, name, prop, obs.value, obs.modality, obs.channel, obs.speaker),
            )
            self.exposed.add((name, prop))
        self.agents[name].observe(obs)
        self._drain(name)
        self.wakes.woken(name, obs.minute)


def _priority(predicate: Predicate | None) -> int:
    """A plan from this predicate's news weighs as an errand's default (0) unless it says."""
    return 0 if predicate is None or predicate.priority is None else predicate.priority


def run_episode(
    scenario: Scenario,
    policy: Any,
    seed: int,
    agent: str | AgentFactory,
    budget: Budget | None = None,
) -> dict[str, pa.Table]:
    with alarm(budget), Episode(scenario, policy, seed, agent) as episode:
        return episode.run(budget=budget)


def origin_notices(s: Scenario) -> list[WorldEvent]:
    """What each of a truth's several `origins` witnesses: a notice to it alone at its time,
    at its modality, first-hand (a single `origin` is told by the scenario's own events)."""
    return [
        WorldEvent(
            id=f"{t.proposition}_origin_{o.agent}"[:64],
            at=o.at,
            kind="notice",
            proposition=t.proposition,
            value=t.value,
            channel="seen",
            modality=o.modality,
            seen_by=(o.agent,),
        )
        for t in sorted(s.truth, key=lambda t: t.proposition)
        for o in t.origins or ()
    ]
