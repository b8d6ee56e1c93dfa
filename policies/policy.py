"""Policy: the values of the whitelisted parameters — immutable, validated, hashed."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    create_model,
)

from villagelab.yamlsource import InputError, Location, YamlSource, format_location, listing, shown

from .param import Param
from .surface import BUILTIN, Surface

Value = bool | int | float | str


def _field_type(p: Param) -> Any:
    if p.kind == "bool":
        return StrictBool
    if p.kind == "int":
        return StrictInt
    if p.kind == "float":
        return float
    return Literal[p.choices]  # type: ignore[valid-type]


@cache
def _schema(surface: Surface) -> type[BaseModel]:
    """The policy file's model for a surface (built once per surface)."""
    strict = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    families: dict[str, dict[str, Any]] = {}
    for p in surface.params:
        family, key = p.name.split(".", 1)
        constraint: dict[str, Any] = {} if p.low is None else {"ge": p.low, "le": p.high}
        families.setdefault(family, {})[key] = (_field_type(p) | None, Field(None, **constraint))
    models = {
        f: create_model(f"{f.title()}Values", __config__=strict, **fields)
        for f, fields in families.items()
    }
    optional: dict[str, Any] = {f: (m | None, None) for f, m in models.items()}
    return create_model("PolicyFile", __config__=strict, **optional)


_schema(BUILTIN)  # the built-in one at import: the first command to load a policy waits less


class Policy(Mapping[str, Value]):
    """An immutable assignment of every parameter of a surface (unset ones take their
    default): the built-in whitelist unless an agent declares parameters of its own."""

    __slots__ = ("_hash", "_surface", "_values")

    def __init__(
        self, values: Mapping[str, Value] | None = None, surface: Surface = BUILTIN
    ) -> None:
        given = dict(values or {})
        by_name = surface.by_name
        unknown = sorted(set(given) - set(by_name))
        if unknown:
            raise InputError(f"not on the {surface.label}: {', '.join(unknown)}")
        merged = {p.name: given.get(p.name, p.default) for p in surface.params}
        for name, value in merged.items():
            _check(by_name[name], value)
        self._surface = surface
        self._values = MappingProxyType({n: _canonical(by_name[n], v) for n, v in merged.items()})
        payload = json.dumps(dict(self._values), sort_keys=True, separators=(",", ":"))
        self._hash = hashlib.blake2b(payload.encode(), digest_size=8).hexdigest()

    def __getitem__(self, name: str) -> Value:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __reduce__(self) -> tuple[Any, ...]:
        if self._surface.builtin:
            return (Policy, (dict(self._values),))
        return (Policy, (dict(self._values), self._surface))

    def __hash__(self) -> int:
        return int(self._hash, 16)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Policy) and other._hash == self._hash

    def __repr__(self) -> str:
        return f"Policy({self._hash})"

    @property
    def surface(self) -> Surface:
        return self._surface

    @property
    def hash(self) -> str:
        """A stable content digest: the same values give the same hash in any process."""
        return self._hash

    def replace(self, **changes: Value) -> Policy:
        named = {k.replace("__", "."): v for k, v in changes.items()}
        return Policy({**self._values, **named}, self._surface)

    def with_values(self, changes: Mapping[str, Value]) -> Policy:
        return Policy({**self._values, **changes}, self._surface)

    def on(self, surface: Surface) -> Policy:
        """These values on another surface: its own parameters at their defaults unless set
        here, and values this surface has that it lacks refused (InputError)."""
        return Policy(dict(self._values), surface) if surface != self._surface else self

    def nested(self) -> dict[str, dict[str, Value]]:
        out: dict[str, dict[str, Value]] = {}
        for name, value in self._values.items():
            family, key = name.split(".", 1)
            out.setdefault(family, {})[key] = value
        return out

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.nested(), sort_keys=False)


def _canonical(p: Param, value: Value) -> Value:
    return float(value) if p.kind == "float" else value


def _check(p: Param, value: Value) -> None:
    if not p.admits(value):
        raise InputError(f"{p.name} = {value!r}: expected {p.allowed()}")


def load_policy(path: str | Path, surface: Surface = BUILTIN) -> Policy:
    """Read and validate a policy YAML file against a surface (the built-in whitelist unless
    an agent declares its own parameters); a bad file raises InputError naming file, line,
    key and what the surface allows there."""
    source = YamlSource.load(path)
    if not isinstance(source.data, dict):
        raise source.error((), "expected a mapping of parameter families (memory:, sharing:, ...)")
    for family, group in source.data.items():  # an empty value is a slip, not "the default"
        empties: list[Location] = [(family,)] if group is None else []
        if isinstance(group, dict):
            empties += [(family, key) for key, value in group.items() if value is None]
        for where in empties:
            raise source.error(
                where, "empty; expected a value (leave the key out to use the default)"
            )
    try:
        parsed = _schema(surface).model_validate(source.data, strict=True)
    except ValidationError as exc:
        raise _policy_errors(source, exc, surface) from None
    values = {
        f"{family}.{key}": v
        for family, group in parsed.model_dump(exclude_none=True).items()
        for key, v in group.items()
    }
    return Policy(values, surface)


def _policy_errors(source: YamlSource, exc: ValidationError, surface: Surface) -> InputError:
    lines = []
    for err in exc.errors():
        where = tuple(err["loc"])
        head = f"{source.path}:{source.line_of(where)}: {format_location(where)}"
        name = ".".join(str(x) for x in where)
        if err["type"] == "extra_forbidden":
            family = str(where[0])
            known = [p.name for p in surface.params if p.family == family] if len(where) > 1 else []
            allowed = ", ".join(known) if known else ", ".join(sorted(surface.families))
            lines.append(f"{head}: not on the {surface.label}; allowed here: {allowed}")
        elif name in surface.by_name:
            got = err.get("input")
            lines.append(f"{head}: got {shown(got)}; expected {surface.by_name[name].allowed()}")
        else:
            lines.append(f"{head}: expected a mapping of parameters, got {shown(err.get('input'))}")
    return InputError(listing(lines))


def baseline_path() -> Path:
    return Path(__file__).with_name("baseline.yaml")


def describe(policy: Policy) -> list[tuple[str, Value, Value, str]]:
    """Rows (name, value, default, meaning) for `policy show`."""
    return [(p.name, policy[p.name], p.default, p.meaning) for p in policy.surface.params]


def diff(a: Policy, b: Policy) -> list[tuple[str, Value, Value]]:
    return [(name, a[name], b[name]) for name in a if a[name] != b[name]]
