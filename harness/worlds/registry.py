"""Which physics plug-ins a scenario may name: the built-in worlds and the modules installed
packages register in the `villagelab.physics` entry-point group (`name = package.module`).

A scenario file is data that people share: a name in its `physics:` list is looked up here, and
only a registered module is ever imported. An unknown name is the scenario's error, refused
before any import, with the registered names listed (data never chooses code).
"""

from __future__ import annotations

import importlib.metadata

GROUP = "villagelab.physics"
# a built-in world's name is its module's path, as the scenario files have always named it
BUILTIN: tuple[str, ...] = (
    "harness.worlds.village",
    "harness.worlds.room",
    "harness.worlds.conversation",
)


class UnregisteredPhysics(LookupError):
    """A physics name that no built-in and no installed package registers."""


def registered() -> dict[str, str]:
    """Every physics name → the module that implements it: the built-in ones, then installed
    packages' (a package cannot take a built-in name)."""
    names = {name: name for name in BUILTIN}
    for ep in sorted(importlib.metadata.entry_points(group=GROUP), key=lambda e: e.name):
        names.setdefault(ep.name, ep.value.partition(":")[0].strip())
    return names


def module_for(name: str) -> str:
    """The module a registered physics name stands for (UnregisteredPhysics otherwise)."""
    names = registered()
    if name not in names:
        raise UnregisteredPhysics(
            f"no physics plug-in named {name!r}; registered: {', '.join(names)} (a package adds "
            f"one through the {GROUP!r} entry-point group)"
        )
    return names[name]
