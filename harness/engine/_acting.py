"""Movement and action in the tick loop: an intent becomes a walk over the road graph (stopped
by an impassable place), then an action checked against world facts on arrival; its result
reaches the agent when the action is done, as only what the senses report (a request's
outcome too: what the agent makes of it is the agent's own affair). An intent naming an
action or place this world does not have is refused as an invalid action, with the reason."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from scenarios import day_of

from .contract import ActionStatus, Channel, Intent, IntentKind, Observation, ObservationKind
from .positions import Position, Whereabouts


class Acting:
    """The tick loop's movement and action (a part of `Episode`)."""

    positions: Whereabouts
    actions: dict[str, Any]
    world: Any
    rec: Any
    scenario: Any
    specs: dict[str, Any]
    decided: dict[str, None]
    new_event: Any
    _schedule: Any
    _deliver: Any
    _drain: Any
    _signs_at: Any
    _ledger: Any

    def _execute(self, name: str, intent: Intent, now: int) -> None:
        reason = self._invalid(intent)
        if reason is not None:
            self._refuse(name, intent, reason, now)
            return
        if intent.kind is IntentKind.DECLINE:  # a speech act: said where the agent stands
            self._act(name, intent, now)
            return
        pos = self.positions[name]
        here = pos.location or pos.destination
        route = self.world.route(here, intent.target) if here is not None else None
        if route is None:
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
            others = self.positions.here(place)  # a sorted copy, the arriving agent in it
            if place is not None:
                others.remove(name)
            self._deliver(
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
                self._signs_at(name, seen, now, eid)
        else:
            self.positions[name] = Position(pos.location)
        if intent is not None:
            self._act(name, Intent(**intent), now, reachable=not blocked)
        self._drain(name)

    def _act(self, name: str, intent: Intent, now: int, reachable: bool = True) -> None:
        eid = self.new_event()
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
        self.rec.add(
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
            else self.scenario.plan_horizon // self.scenario.tick_minutes,
            request_id=intent.request_id,
            planned=None if dp is None else self._planned(name, dp),
            chance=None if dp is None else self._chance(name, dp),
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
        result = {
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
            self._deliver(name, Observation(**result))
            return
        self._schedule(now + minutes, name, result)  # it is done when it is done

    def _decision_point(self, agent: str, action: str, now: int) -> Any:
        for dp in self.scenario.decision_points:
            key = f"{agent}|{dp.id}"
            if dp.action == action and dp.day == day_of(now) and key not in self.decided:
                self.decided[key] = None
                return dp
        return None

    def _planned(self, agent: str, dp: Any) -> str | None:
        """The target the agent's own errand names for a decision point's action and day."""
        for errand in self.specs[agent].errands:
            if errand.action == dp.action and dp.day in errand.days:
                return str(errand.target)
        return None

    def _chance(self, agent: str, dp: Any) -> float:
        """What a guess away from the agent's plan would get: the share of right targets
        among the places it knows for the action, its planned one left out (0 with none)."""
        planned = self._planned(agent, dp)
        others = sorted(set(self.specs[agent].knows_where.get(dp.action, ())) - {planned})
        return sum(p in dp.right for p in others) / len(others) if others else 0.0

    def _stances_met(self, agent: str, request_id: str | None) -> tuple[str, ...]:
        """The agent's protected stances that forbid the request's action or item: the ones
        a decline of it may stand on."""
        for request in self.scenario.requests:
            if request.id == request_id:
                vetoes = self.specs[agent].persona.vetoes(request.action, request.item)
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
        eid = self.new_event()
        self.rec.add(
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
        self._deliver(
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
