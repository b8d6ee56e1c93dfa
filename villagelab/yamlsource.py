"""YAML documents that remember where each value came from, for errors a user can act on.

Policies and scenarios are user-written files; every validation error names the file, the line,
the path inside the document and what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

Location = tuple[str | int, ...]


class InputError(Exception):
    """A user's file is wrong. The message is complete and meant for the user (exit code 2)."""


def _construct(node: yaml.Node, here: Location, lines: dict[Location, int]) -> Any:
    lines[here] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = yaml.safe_load(yaml.serialize(key_node))
            if key in out:
                raise _DuplicateKey(key, key_node.start_mark.line + 1, here)
            out[key] = _construct(value_node, (*here, key), lines)
            lines[(*here, key)] = key_node.start_mark.line + 1  # errors point at the key
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item, (*here, i), lines) for i, item in enumerate(node.value)]
    return yaml.safe_load(yaml.serialize(node))


class _DuplicateKey(Exception):
    def __init__(self, key: Any, line: int, where: Location) -> None:
        super().__init__(key, line, where)
        self.key, self.line, self.where = key, line, where


def format_location(where: Location) -> str:
    out = ""
    for part in where:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


@dataclass(frozen=True)
class YamlSource:
    """A parsed YAML document plus the line of every value in it."""

    path: Path
    data: Any
    lines: dict[Location, int] = field(repr=False)
    text: str = field(repr=False, default="")

    @classmethod
    def load(cls, path: str | Path) -> YamlSource:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
        return cls.parse(text, path)

    @classmethod
    def parse(cls, text: str, path: Path) -> YamlSource:
        lines: dict[Location, int] = {}
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
            data = {} if node is None else _construct(node, (), lines)
        except _DuplicateKey as dup:
            raise InputError(
                f"{path}:{dup.line}: at {format_location((*dup.where, dup.key))}: "
                f"the key {dup.key!r} appears twice; expected each key once"
            ) from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f":{mark.line + 1}" if mark is not None else ""
            problem = getattr(exc, "problem", None) or str(exc)
            raise InputError(f"{path}{line}: not valid YAML: {problem}") from None
        return cls(path=path, data=data, lines=lines, text=text)

    def line_of(self, where: Location) -> int:
        """The line of the nearest enclosing value that exists in the file."""
        for n in range(len(where), -1, -1):
            if where[:n] in self.lines:
                return self.lines[where[:n]]
        return 1

    def error(self, where: Location, expected: str) -> InputError:
        return InputError(
            f"{self.path}:{self.line_of(where)}: at {format_location(where)}: {expected}"
        )

    def errors_from(self, exc: ValidationError, prefix: Location = ()) -> InputError:
        """Turn pydantic's errors into one message with file, line, path and expectation."""
        parts = []
        for err in exc.errors():
            where = (*prefix, *err["loc"])
            parts.append(
                f"{self.path}:{self.line_of(where)}: at {format_location(where)}: "
                f"{_expectation(err)}"
            )
        return InputError("\n".join(parts))


def _expectation(err: dict[str, Any]) -> str:
    kind, msg = err["type"], err["msg"]
    if kind == "extra_forbidden":
        return "unknown key; remove it or check its spelling"
    if kind == "missing":
        return "required key is missing"
    got = err.get("input")
    shown = "" if isinstance(got, (dict, list)) else f" (got {got!r})"
    return f"{msg[0].lower()}{msg[1:]}{shown}"
