"""Movement and action in the tick loop: an intent becomes a walk over the road graph (stopped
by an impassable place), then an action checked against world facts on arrival; its result
reaches the agent when the action is done, as only what the senses report (a request's
outcome too: what the agent makes of it is the agent's own affair). An intent naming an
action or place this world does not have is refused as an invalid action, with the reason."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from scenarios import day_of

from .actions import Action
from .contract import ActionStatus, Channel, Intent, IntentKind, Observation, ObservationKind
from .ledger import record_moves
from .positions import Position, Whereabouts
from .tick import Tick
from .world import World

# an action's result still to come: (due minute, agent, n, the observation's fields)
Result = tuple[int, str, int, dict[str, Any]]


class Acting:
    """The tick loop's movement and action (a part of `Episode`): it owns where each agent is,
    the decision points already answered and the actions' results still to come."""

    def __init__(
        self,
        tick: Tick,
        world: World,
        actions: Mapping[str, Action],
        positions: Whereabouts,
        signs_at: Callable[[str, str, int, int], None],
    ) -> None:
        self.tick, self.world, self.actions = tick, world, actions
        self.positions = positions
        self.signs_at = signs_at  # what an agent reads at a place it arrives at or passes
        # "agent|decision point" already answered, in order (a dict: a look-up, not a scan)
        self.decided: dict[str, None] = {}
        self.results: list[Result] = []  # a heap: actions whose result is still to come
        self.pending = 0  # results ever scheduled: n keeps equal (due, agent) in their order

    def schedule(self, due: int, name: str, result: dict[str, Any]) -> None:
        """An action's result, delivered at `due` (in (due, agent) order, then as scheduled)."""
        self.pending += 1
        heapq.heappush(self.results, (due, name, self.pending, result))

    def results_and_arrivals(self, now: int) -> None:
        """The results due by `now` reach their agents, then walks that end now arrive."""
        results, deliver = self.results, self.tick.deliver
        while results and results[0][0] <= now:
            _, name, _, result = heapq.heappop(results)
            deliver(name, Observation(**{**result, "minute": now}))
        for name in self.positions.arriving(now):
            self.arrive(name, now)

    def execute(self, name: str, intent: Intent, now: int) -> None:
        reason = self._invalid(intent)
        if reason is not None:
            self._refuse(name, intent, reason, now)
            return
        if intent.kind is IntentKind.DECLINE:  # a speech act: said where the agent stands
            self._act(name, intent, now)
            return
        pos = self.positions[name]
        here = pos.location or pos.destination
        route = None if here is None else self.world.route(here, intent.target)
        if here is None or route is None:  # nowhere to start from (both say so: for mypy)
            if intent.kind is IntentKind.ACT:
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
        # asdict(intent) without its deep copy: an intent's fields are plain values
        record = dict(vars(intent)) if intent.kind is IntentKind.ACT else None
        if minutes == 0 and pos.location == stop:
            self.positions[name] = replace(pos, intent=record, blocked=blocked)
            self.arrive(name, now, moved=False)
            return
        passed = tuple(p for p in walked if p != stop)
        self.positions[name] = Position(None, stop, now + minutes, record, blocked, passed)

    def arrive(self, name: str, now: int, moved: bool = True) -> None:
        pos = self.positions[name]
        intent, blocked = pos.intent, pos.blocked
        if moved:
            place = pos.destination
            self.positions[name] = Position(place)
            eid = self.tick.new_event()
            others = self.positions.here(place)  # a sorted copy, the arriving agent in it
            if place is not None:
                others.remove(name)
            self.tick.deliver(
                name,
                Observation(
                    ObservationKind.ARRIVAL,
                    now,
                    eid,
                    Channel.SEEN,
                    place or "",
                    detail=",".join(others) or None,
                    company=tuple(others),
                ),
            )
            for seen in (*pos.passed, place or ""):
                self.signs_at(name, seen, now, eid)
        else:
            self.positions[name] = Position(pos.location)
        if intent is not None:
            self._act(name, Intent(**intent), now, reachable=not blocked)
        self.tick.drain(name)

    def _act(self, name: str, intent: Intent, now: int, reachable: bool = True) -> None:
        tick = self.tick
        eid = tick.new_event()
        declined = intent.kind is IntentKind.DECLINE
        action = self.actions["decline" if declined else intent.action or ""]
        ok = reachable and action.precondition(self.world, name, intent.target, intent.item)
        if declined:  # a refusal stands only on a protected stance that the request meets
            ok = ok and intent.target in self._stances_met(name, intent.request_id)
        moves = action.effect(self.world, name, intent.target, intent.item) if ok else []
        dp = self._decision_point(name, action.name, now)
        if ok:
            sensed = action.report(self.world, name, intent.target, intent.item)
        else:
            sensed = "the way was blocked" if not reachable else action.sensed_on_failure
        tick.rec.add(
            "actions",
            now,
            eid,
            agent=name,
            action=action.name,
            target=intent.target,
            plan_id=intent.plan_id,
            ok=ok,
            status=ActionStatus.OK if ok else ActionStatus.FAILED,
            reason=None if ok else sensed,
            decision_point=None if dp is None else dp.id,
            proposition=None if dp is None else dp.proposition,
            in_line=None if dp is None else intent.target in dp.right,
            horizon=None
            if dp is None
            else tick.scenario.plan_horizon // tick.scenario.tick_minutes,
            request_id=intent.request_id,
            planned=None if dp is None else self._planned(name, dp),
            chance=None if dp is None else self._chance(name, dp),
        )
        record_moves(tick.rec, moves, now, eid, intent.target, name)
        if ok and action.milestone:
            tick.rec.add(
                "events",
                now,
                eid,
                kind="milestone",
                place=intent.target,
                agent=name,
                detail=intent.item,
            )
        result: dict[str, Any] = {
            "kind": ObservationKind.ACTION_RESULT,
            "minute": now,
            "event_id": eid,
            "channel": Channel.DID,
            "subject": intent.target,
            "ok": ok,
            "detail": sensed,
        }
        minutes = intent.minutes if intent.minutes is not None else action.minutes
        if minutes <= 0 or not ok:
            tick.deliver(name, Observation(**result))
            return
        self.schedule(now + minutes, name, result)  # it is done when it is done

    def _decision_point(self, agent: str, action: str, now: int) -> Any:
        for dp in self.tick.scenario.decision_points:
            key = f"{agent}|{dp.id}"
            if dp.agents is not None and agent not in dp.agents:
                continue  # not theirs to decide
            if dp.action == action and dp.day == day_of(now) and key not in self.decided:
                self.decided[key] = None
                return dp
        return None

    def _planned(self, agent: str, dp: Any) -> str | None:
        """The target the agent's own errand names for a decision point's action and day."""
        for errand in self.tick.specs[agent].errands:
            if errand.action == dp.action and dp.day in errand.days:
                return str(errand.target)
        return None

    def _chance(self, agent: str, dp: Any) -> float:
        """What a guess away from the agent's plan would get: the share of right targets
        among the places it knows for the action, its planned one left out (0 with none)."""
        planned = self._planned(agent, dp)
        others = sorted(set(self.tick.specs[agent].knows_where.get(dp.action, ())) - {planned})
        return sum(p in dp.right for p in others) / len(others) if others else 0.0

    def _stances_met(self, agent: str, request_id: str | None) -> tuple[str, ...]:
        """The agent's protected stances that forbid the request's action or item: the ones
        a decline of it may stand on."""
        for request in self.tick.scenario.requests:
            if request.id == request_id:
                vetoes = self.tick.specs[agent].persona.vetoes(request.action, request.item)
                return tuple(s.id for s in vetoes)
        return ()

    def _invalid(self, intent: Intent) -> str | None:
        """Why the world cannot carry out an intent as named (None: it can try)."""
        if intent.kind is IntentKind.DECLINE:
            return None
        if intent.kind is IntentKind.ACT and intent.action not in self.actions:
            known = ", ".join(sorted(self.actions))
            return f"no action {intent.action!r} in this world; its actions: {known}"
        if intent.target not in self.world.roads:
            return f"no place {intent.target!r} in this world"
        return None

    def _refuse(self, name: str, intent: Intent, reason: str, now: int) -> None:
        """An intent the world cannot carry out is a failed action with the reason, told to
        the agent at once; it answers no decision point and the episode goes on."""
        tick = self.tick
        eid = tick.new_event()
        tick.rec.add(
            "actions",
            now,
            eid,
            agent=name,
            action=intent.action or intent.kind,
            target=intent.target,
            plan_id=intent.plan_id,
            ok=False,
            status=ActionStatus.INVALID,
            reason=reason,
            request_id=intent.request_id,
        )
        tick.deliver(
            name,
            Observation(
                ObservationKind.ACTION_RESULT,
                now,
                eid,
                Channel.DID,
                intent.target,
                ok=False,
                detail=reason,
            ),
        )
