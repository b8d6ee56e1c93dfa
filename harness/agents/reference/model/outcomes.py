"""What an autonomous agent learns from its actions' results and from sounds: holdings, where
things are, the project's stage, its light, skill. Pure functions."""

from __future__ import annotations

from dataclasses import replace

from scenarios.persona import Persona
from scenarios.room import RoomKnowledge

from . import life
from .autonomy import FLICKERING, OK, Mind, stage_need, window_light


def on_result(
    mind: Mind,
    state: life.LifeState,
    persona: Persona,
    room: RoomKnowledge,
    action: str,
    target: str,
    item: str | None,
    ok: bool,
    detail: str | None,
    minute: int,
    event_id: int,
) -> tuple[Mind, life.LifeState]:
    """What an action's result teaches: holdings, stock, the project, the light, skill."""
    meals, project, light = room.meals, room.project, room.light
    holding, stock = dict(mind.holding), dict(mind.stock)
    mind = replace(mind, doing=None, committed_until=None)
    if action == "sleep":
        return replace(mind, asleep_until=None), state
    if action == "eat" and ok:
        state = life.eat(state, event_id)
        if meals.leaves is not None:
            holding[meals.leaves] = holding.get(meals.leaves, 0) + 1
        stock[f"{target}|{meals.food}"] = max(0, stock.get(f"{target}|{meals.food}", 0) - 1)
    elif action == "eat":
        stock[f"{target}|{meals.food}"] = 0
    elif action == "search" and item:
        stock[f"{target}|{item}"] = counts(detail or "").get(item, 0)
        mind = replace(mind, searched=(*mind.searched, f"{target}|{item}"))
    elif action == "pick_up" and item:
        if ok:
            holding[item] = holding.get(item, 0) + 1
            leads = {k: v for k, v in mind.leads.items() if k != item}  # the shortage is over
            mind = replace(mind, leads=leads)
        stock[f"{target}|{item}"] = max(0, stock.get(f"{target}|{item}", 0) - 1) if ok else 0
    elif action == "tidy" and ok and meals.leaves is not None:
        holding[meals.leaves] = max(0, holding.get(meals.leaves, 0) - 1)
    elif action == project.action:
        state = life.record_outcome(state, project.skill, target, ok, event_id)
        if ok and item:
            need = stage_need(item, room)
            if need:
                holding[need] = max(0, holding.get(need, 0) - 1)
            appraisal = life.appraise(
                "milestone", goal_related=True, caused_by="self", expected=True, helps=True
            )
            state = life.apply_event(state, persona, appraisal, event_id, minute)
            mind = replace(mind, stage=item)
        elif not window_light(minute, room):
            mind = replace(mind, fixture=FLICKERING)  # it was the light: the fixture is suspect
    elif action == "inspect" and detail:
        if target == light.at:
            found = next((f.fault for f in light.faults if f.seen in detail), OK)
            tracker = None if mind.light is None else life.new_evidence(mind.light, minute)
            mind = replace(mind, fixture=found, light=tracker)
        else:
            stock.pop(f"{target}|?", None)
            for resource, count in counts(detail).items():
                stock[f"{target}|{resource}"] = count
    elif action in light.repairs and (tracker := mind.light) is not None:
        if ok:
            mind = replace(mind, fixture=OK, light=life.succeeded(tracker, action, 1.0))
        else:
            mind = replace(mind, light=life.failed(tracker, action, minute))
    return replace(mind, holding=holding, stock=stock), state


def counts(report: str) -> dict[str, int]:
    """What a shelf was seen to hold, from a report like "paint:2,paper:0"."""
    out = {}
    for part in report.split(","):
        resource, _, count = part.partition(":")
        if count.strip().isdigit():
            out[resource.strip()] = int(count)
    return out


def on_sound(mind: Mind, place: str, minute: int) -> Mind:
    """Something arrived at `place`: worth a look; it may wake a light sleeper near morning."""
    stock = {k: v for k, v in mind.stock.items() if not k.startswith(f"{place}|")}
    stock[f"{place}|?"] = 1  # unknown: go and see
    asleep = mind.asleep_until
    if asleep is not None and asleep - minute <= 60:
        asleep = minute
    # new evidence: places searched in vain are worth another look, memory another question
    return replace(mind, stock=stock, asleep_until=asleep, leads={}, searched=())
