"""Frozen records made many times a day, made quicker.

A frozen dataclass's generated `__init__` sets each field through `object.__setattr__` (its own
`__setattr__` refuses): one call per field. The rows and observations of a village day are
made tens of thousands of times, so `quick_init` gives such a class an `__init__` with the
same signature that writes the fields into the instance's dict directly — the same object
(same fields in the same order, `__post_init__` run as before, or, when it is `coerce_enums`,
the enum fields coerced in line), made at a third of the cost.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import TypeVar

from .kinds import coerce_enums

T = TypeVar("T", bound=type)


def quick_init(cls: T) -> T:
    """`cls` (a frozen, unslotted dataclass, applied outside `@dataclass`) with a quicker
    `__init__` of the same parameters and defaults."""
    every = fields(cls)
    if any(f.default_factory is not MISSING or not f.init or f.kw_only for f in every):
        raise TypeError(f"{cls.__name__}: quick_init takes plain fields only")
    if "__slots__" in cls.__dict__:
        raise TypeError(f"{cls.__name__}: quick_init needs an instance dict")
    # the defaults are the generated function's globals, named after their fields
    defaults = {f"_{f.name}": f.default for f in every if f.default is not MISSING}
    params = ", ".join(f.name if f.default is MISSING else f"{f.name}=_{f.name}" for f in every)
    lines = []
    post = getattr(cls, "__post_init__", None)
    if post is coerce_enums:  # the enum fields coerced in line, as coerce_enums would
        for name, kind in cls.ENUMS.items():  # type: ignore[attr-defined]  # with coerce_enums
            defaults[f"_enum_{name}"] = kind
            lines.append(f"    if {name} is not None and type({name}) is not _enum_{name}:")
            lines.append(f"        {name} = _enum_{name}({name})")
    lines += ["    d = self.__dict__", *(f"    d[{f.name!r}] = {f.name}" for f in every)]
    if post is not None and post is not coerce_enums:
        lines.append("    self.__post_init__()")
    source = f"def __init__(self, {params}):\n" + "\n".join(lines)
    exec(source, defaults)  # noqa: S102 - made from the class's own field names, as dataclasses does
    init = defaults["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__  # type: ignore[misc]  # the class's own, replaced here
    cls.__init__ = init  # type: ignore[misc]
    return cls
