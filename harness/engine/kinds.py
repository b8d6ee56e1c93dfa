"""The contract's enums: what an observation, an intent or an action is, and the lifecycles
(belief status, plan stage, episode status). Records take the plain strings too."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ObservationKind(StrEnum):
    NOTICE = "notice"  # a perceived world event about a proposition
    CLAIM = "claim"  # something said to the agent
    ARRIVAL = "arrival"  # it reached a place (detail: who is there)
    ACTION_RESULT = "action_result"  # how its action went (only what the senses report)
    REQUEST = "request"  # the player asked something
    CHAT = "chat"  # it talked with someone
    SOUND = "sound"  # something audible happened at a place (a supply arriving)
    ACTIVITY = "activity"  # an everyday activity of its own (the agent's, never the harness's)
    LINE = "line"  # a person outside the simulation said something to it (detail: the words)


class Channel(StrEnum):
    SEEN = "seen"
    HEARD = "heard"
    READ = "read"
    TOLD = "told"
    DID = "did"


class Modality(StrEnum):
    CERTAIN = "certain"
    LIKELY = "likely"
    RUMOR = "rumor"


class Privacy(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"


class IntentKind(StrEnum):
    MOVE = "move"  # go to `target`
    ACT = "act"  # go to `target` and do `action` there on arrival
    DECLINE = "decline"  # refuse a request where one stands; `target` names the stance


class ActionStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"  # the world did not allow it (what the senses noticed is the reason)
    INVALID = "invalid"  # the harness could not carry it out: no such action or place


class EpisodeStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"  # its worker or node was lost
    CRASHED = "crashed"  # an exception, in the episode or in measuring it
    TIMED_OUT = "timed_out"  # ran past its wall-clock budget
    OUT_OF_MEMORY = "out_of_memory"  # grew past its memory budget
    CACHE_MISS = "cache_miss"  # replaying from a response cache only, a model call was missing
    BUDGET_EXHAUSTED = "budget_exhausted"  # the episode's or trial's token budget was spent


class BeliefStatus(StrEnum):
    CURRENT = "current"
    SUPERSEDED = "superseded"
    OUTDATED = "outdated"
    FORGOTTEN = "forgotten"


class PlanStage(StrEnum):
    FETCH = "fetch"  # a request: get the item first
    CARRY_OUT = "carry_out"  # do the plan's action
    DONE = "done"
    FAILED = "failed"


def coerce_enums(record: Any) -> None:
    """Turn the strings given for a record's enum fields into the enum (ValueError if none)."""
    fields = record.__dict__  # read at once: the records are frozen dataclasses, not slotted
    for name, kind in record.ENUMS.items():
        value = fields[name]
        # an enum has no subclasses, so `type is` is isinstance at a fraction of the cost
        if value is not None and type(value) is not kind:
            object.__setattr__(record, name, kind(value))
