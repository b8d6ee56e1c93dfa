"""A policy surface: the parameters a policy may set. The built-in whitelist is one (the
reference and LLM agents' declaration); an agent's own declaration adds parameters of its own
in families of its own, each the same `Param` record, and everything that takes a policy
validates, searches and shows them alike."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from villagelab.yamlsource import InputError

from .param import Param
from .whitelist import WHITELIST

NAME = re.compile(r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$")  # family.parameter, snake_case


@dataclass(frozen=True)
class Surface:
    """The parameters a policy may set, in order, and what to call the surface in a message."""

    params: tuple[Param, ...]
    label: str = "whitelist"
    own: tuple[Param, ...] = field(default=(), compare=False)  # declared by an agent

    @cached_property
    def by_name(self) -> dict[str, Param]:
        return {p.name: p for p in self.params}

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.family for p in self.params))

    @property
    def builtin(self) -> bool:
        return not self.own

    def to_json(self) -> dict[str, object]:
        """The agent's own parameters and the surface's name, as plain data (the whitelist
        is the package's own)."""
        return {"label": self.label, "own": [p.to_json() for p in self.own]}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Surface:
        own = [Param.from_json(p) for p in data["own"]]  # type: ignore[attr-defined]
        return cls(WHITELIST + tuple(own), str(data["label"]), tuple(own)) if own else BUILTIN


BUILTIN = Surface(WHITELIST)


def declared(own: Iterable[Param], agent: str) -> Surface:
    """The built-in whitelist and an agent's own parameters: each named family.parameter in
    snake_case, in a family of its own (a built-in family's name is the built-in one's), each
    once."""
    params = tuple(own)
    builtin_families = set(BUILTIN.families)
    seen: set[str] = set()
    for p in params:
        if not isinstance(p, Param):
            raise InputError(f"{agent}: policy_surface holds {p!r}; expected a name or a Param")
        if not NAME.match(p.name):
            raise InputError(
                f"{agent}: parameter {p.name!r}: expected family.parameter in snake_case "
                "(gossip.retell_limit)"
            )
        if p.family in builtin_families:
            raise InputError(
                f"{agent}: parameter {p.name!r} is in the built-in family {p.family!r}; "
                "an agent's own parameters take a family of their own"
            )
        if p.name in seen:
            raise InputError(f"{agent}: parameter {p.name!r} declared twice")
        seen.add(p.name)
        if p.default is not None and not p.admits(p.default):
            raise InputError(
                f"{agent}: parameter {p.name!r}: default {p.default!r} is not {p.allowed()}"
            )
    if not params:
        return BUILTIN
    return Surface(WHITELIST + params, f"policy surface of {agent}", params)
