"""The scalar types scenario files are written in: moments, clock times, spans, ids."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo

from villagelab.yamlsource import FROM_FILE

from .clock import parse_clock, parse_moment, parse_span


def _converter(parse, example: str):  # type: ignore[no-untyped-def]
    def convert(value: object, info: ValidationInfo) -> object:
        if isinstance(value, str):
            return parse(value)
        if (info.context or {}).get(FROM_FILE):  # a bare number in a file: minutes? hours?
            raise ValueError(f"expected text like {example!r}, got {value!r}")
        return value

    return BeforeValidator(convert)


def from_text(kind):  # type: ignore[no-untyped-def]
    """An enum written in a file as its value's text (strict validation would refuse text)."""

    def convert(value: object) -> object:
        if isinstance(value, str) and not isinstance(value, kind):
            if value not in kind._value2member_map_:
                choices = ", ".join(m.value for m in kind)
                raise ValueError(f"expected one of {choices}, got {value!r}")
            return kind(value)
        return value

    return BeforeValidator(convert)


Moment = Annotated[int, _converter(parse_moment, "day 2 08:00"), Field(ge=0)]
Clock = Annotated[int, _converter(parse_clock, "08:00"), Field(ge=0, lt=24 * 60)]
Span = Annotated[int, _converter(parse_span, "48h"), Field(gt=0)]
Id = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]  # names become paths
Modality = Literal["certain", "likely", "rumor"]


class PlaceFact(StrEnum):
    """The facts every place of a world has, true until an event sets them (`<place>.<fact>`):
    the world's rules read them; any other fact is one the scenario declares."""

    PASSABLE = "passable"  # a way through it: false stops whoever would pass
    OPEN = "open"  # its door: false fails what is done there


class Sense(StrEnum):
    """What a predicate of the scenario's vocabulary does to plans about its subject."""

    UNUSABLE = "unusable"  # the subject (a place) cannot be used on day `object`
    CLOSES_EARLY = "closes_early"  # it closes early that day
    KEPT_AT = "kept_at"  # the subject (a material) is kept at the place `object`
    MOVED_TO = "moved_to"  # what happened at the subject now happens at the place `object`
    GATHERING = "gathering"  # a gathering at the subject; `object` says when ("2 17:00")
    RETRACTS = "retracts"  # the claim `object` names (a tracked proposition) is withdrawn


# the senses whose news makes a plan of its own (to be somewhere at a time), which may then
# meet a standing errand at the same hour; the others change or hurry an errand's own plan
PLANNING_SENSES = frozenset({Sense.GATHERING})


def _sense(value: object) -> object:
    """A file names a sense by its value (files are read strictly: no other coercion)."""
    if isinstance(value, str) and not isinstance(value, Sense):
        try:
            return Sense(value)
        except ValueError:
            known = ", ".join(repr(s.value) for s in Sense)
            raise ValueError(f"expected one of {known}, got {value!r}") from None
    return value


SenseName = Annotated[Sense, BeforeValidator(_sense)]


# a Python module named by a scenario (a physics plug-in), e.g. harness.worlds.room
ModulePath = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")]


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
