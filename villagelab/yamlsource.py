"""YAML documents that remember where each value came from, for errors a user can act on.

Policies, scenarios, the suite, search configs and scorecard definitions are user-written files,
and every one is read here, strictly, so that no file can hang, exhaust or crash a command:

- a size limit before anything is parsed; only a regular file is read (not a pipe, a device or
  a folder), as UTF-8 text (not UTF-16, not binary);
- plain YAML only: mappings with text keys, lists, text, numbers, true/false and null. Every
  tag but the standard ones is refused (`!!python/...` included), merge keys too, and aliases
  beyond a small budget (an alias bomb expands in memory);
- scalars resolved as YAML 1.2's core schema: `true`/`false` (not yes/no/on/off), decimal
  integers, finite numbers; `12:30`, `0x10`, `010` are not turned into numbers behind the user's
  back, and a quoted number stays text (the schema then refuses it: no coercion);
- bounded nesting and a bounded number of values.
Every refusal is an InputError naming the file, the line, the path inside the document and
what was expected. Lists come back as tuples, so a schema can validate them strictly.
"""

from __future__ import annotations

import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

Location = tuple[str | int, ...]

MAX_BYTES = 1 << 20  # 1 MiB: the largest library file is ~7 KB
MAX_DEPTH = 40  # nested mappings and lists
MAX_ALIASES = 32  # alias uses per document
MAX_VALUES = 200_000  # values after aliases are expanded
MAX_TEXT = 20_000  # characters of one text value
MAX_PROBLEMS = 20  # problems listed in one message
INT64 = 2**63 - 1
FROM_FILE = "villagelab.from_file"  # validation context: the data was read from a user's file

Model = TypeVar("Model", bound=BaseModel)


class InputError(Exception):
    """A user's file is wrong. The message is complete and meant for the user (exit code 2)."""


class _Refused(Exception):
    def __init__(self, line: int, where: Location, expected: str) -> None:
        super().__init__(line, where, expected)
        self.line, self.where, self.expected = line, where, expected


# --- scalars: YAML 1.2's core schema --------------------------------------------------------------
_T = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL, SEQ, MAP = (
    f"{_T}{n}" for n in ("str", "int", "float", "bool", "null", "seq", "map")
)
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)


class _Loader(yaml.SafeLoader):
    """PyYAML's parser with the core schema's resolvers and budgets on depth and aliases."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.depth = 0
        self.aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        line = self.peek_event().start_mark.line + 1
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                raise _Refused(
                    line,
                    (),
                    f"more than {MAX_ALIASES} aliases (*name); expected the values "
                    "written out (aliases can expand a small file into a huge one)",
                )
            return super().compose_node(parent, index)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Refused(line, (), f"nesting deeper than {MAX_DEPTH} levels; expected less")
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


_Loader.yaml_implicit_resolvers = {}
for _tag, _regexp, _first in (
    (BOOL, _BOOL, "tTfF"),
    (INT, _INT, "-+0123456789"),
    (FLOAT, _FLOAT, "-+0123456789."),
    (NULL, _NULL, ["~", "n", "N", ""]),
):
    _Loader.add_implicit_resolver(_tag, _regexp, list(_first))
_Loader.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"])


def _scalar(node: yaml.ScalarNode, where: Location) -> Any:
    line, value, tag = node.start_mark.line + 1, node.value, node.tag
    if tag == STR:
        if len(value) > MAX_TEXT:
            raise _Refused(line, where, f"text of at most {MAX_TEXT:,} characters")
        return value
    if tag == NULL and _NULL.match(value):
        return None
    if tag == BOOL and _BOOL.match(value):
        return value.lower() == "true"
    if tag == INT and _INT.match(value):
        if len(value.lstrip("+-0")) > 19 or abs(int(value)) > INT64:
            raise _Refused(line, where, f"an integer between -{INT64} and {INT64}")
        return int(value)
    if tag == FLOAT and _FLOAT.match(value):
        number = math.inf if value.lstrip("+-.").lower() in ("inf", "nan") else float(value)
        if not math.isfinite(number):
            raise _Refused(line, where, f"a finite number (got {value!r})")
        return number
    if tag in (NULL, BOOL, INT, FLOAT):
        kind = {NULL: "null", BOOL: "true or false", INT: "a decimal integer"}
        raise _Refused(line, where, f"{kind.get(tag, 'a number')} after {_short(tag)}")
    if tag == "tag:yaml.org,2002:merge":
        raise _Refused(line, where, "no merge key (<<); expected the keys written out")
    raise _Refused(line, where, _tag_refusal(tag))


def _short(tag: str) -> str:
    return "!!" + tag[len(_T) :] if tag.startswith(_T) else tag


def _tag_refusal(tag: str) -> str:
    return (
        f"no tag {_short(tag)}; expected plain YAML (mappings, lists, text, numbers, "
        "true/false, null)"
    )


class _Builder:
    """Plain values from a node graph, with each value's line; aliases count toward a budget
    of values, so a shared node expanded many times cannot blow up memory."""

    def __init__(self) -> None:
        self.lines: dict[Location, int] = {}
        self.values = 0

    def build(self, node: yaml.Node, here: Location) -> Any:
        self.values += 1
        line = node.start_mark.line + 1
        if self.values > MAX_VALUES:
            raise _Refused(line, here, f"at most {MAX_VALUES:,} values in a file")
        self.lines[here] = line
        if isinstance(node, yaml.ScalarNode):
            return _scalar(node, here)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != SEQ:
                raise _Refused(line, here, _tag_refusal(node.tag))
            return tuple(self.build(item, (*here, i)) for i, item in enumerate(node.value))
        if node.tag != MAP:
            raise _Refused(line, here, _tag_refusal(node.tag))
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key_line = key_node.start_mark.line + 1
            key = _scalar(key_node, here) if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                got = repr(key) if isinstance(key_node, yaml.ScalarNode) else "a mapping or list"
                raise _Refused(
                    key_line, here, f"a name as key, got {got} (quote it if it is a name)"
                )
            if key in out:
                raise _Refused(
                    key_line, (*here, key), f"the key {key!r} appears twice; expected each once"
                )
            out[key] = self.build(value_node, (*here, key))
            self.lines[(*here, key)] = key_line  # errors point at the key
        return out


def format_location(where: Location) -> str:
    out = ""
    for part in where:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def read_text(path: Path, limit: int = MAX_BYTES) -> str:
    """A user's text file: a regular file of at most `limit` bytes, UTF-8 (InputError if not)."""
    return decode(read_regular(path, limit), path)


def read_regular(
    path: Path | str, limit: int, size: int | None = None, inside: Path | None = None
) -> bytes:
    """A regular file's bytes, at most `limit` of them (and exactly `size` when a record says
    how many the file holds), checked before anything is read: a FIFO, device, socket or
    folder is refused at once, never waited on or read whole; with `inside`, a path that leads
    out of that folder (through a symbolic link) is refused. InputError, naming the file."""
    if inside is not None:
        real, root = os.path.realpath(path), os.path.realpath(inside)
        if os.path.commonpath([real, root]) != root:
            raise InputError(
                f"{path}: leads out of {inside} (a symbolic link); expected a file in it"
            )
    try:
        # O_NONBLOCK: a FIFO opens at once instead of waiting for a writer (then it is refused)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise InputError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{path}: is a folder; expected a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(
                f"{path}: not a regular file (a pipe, device or socket); expected a file"
            )
        if size is not None and info.st_size != size:
            raise InputError(
                f"{path}: {info.st_size:,} bytes; expected the {size:,} its record names"
            )
        if info.st_size > limit:
            raise InputError(f"{path}: {info.st_size:,} bytes; expected at most {limit:,}")
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise InputError(f"{path}: more than {limit:,} bytes; expected at most {limit:,}")
    return data


_BOMS = {
    b"\xff\xfe\x00\x00": "UTF-32",
    b"\x00\x00\xfe\xff": "UTF-32",
    b"\xff\xfe": "UTF-16",
    b"\xfe\xff": "UTF-16",
}


def decode(data: bytes, path: Path | str) -> str:
    for bom, name in _BOMS.items():
        if data.startswith(bom):
            raise InputError(f"{path}: {name} text; expected UTF-8 (save the file as UTF-8)")
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise InputError(f"{path}:{line}: a NUL byte (a binary file?); expected UTF-8 text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{path}:{line}: not UTF-8 text ({exc.reason}); expected UTF-8") from None


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
        return cls.parse(read_text(path), path)

    @classmethod
    def parse(cls, text: str, path: Path) -> YamlSource:
        if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
            raise InputError(f"{path}: more than {MAX_BYTES:,} bytes; expected at most that")
        builder = _Builder()
        loader = None
        try:
            loader = _Loader(text)
            node = loader.get_single_node()
            data = {} if node is None else builder.build(node, ())
        except _Refused as refused:
            raise InputError(
                f"{path}:{refused.line}: at {format_location(refused.where)}: {refused.expected}"
            ) from None
        except yaml.YAMLError as exc:
            raise InputError(
                f"{path}{_yaml_line(exc, text)}: not valid YAML: {_problem(exc)}"
            ) from None
        except RecursionError:  # a parser's own recursion, before the depth budget is reached
            raise InputError(
                f"{path}: nesting too deep; expected at most {MAX_DEPTH} levels"
            ) from None
        finally:
            if loader is not None:
                loader.dispose()
        return cls(path=path, data=data, lines=builder.lines, text=text)

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

    def validate(self, model: type[Model], data: Any = None, **kwargs: Any) -> Model:
        """`model` validated strictly from this file's data (or `data`): no coercion — a
        quoted number is text, true is not 1; errors located in the file."""
        context = {FROM_FILE: True, **kwargs.pop("context", {})}
        try:
            return model.model_validate(
                self.data if data is None else data, strict=True, context=context, **kwargs
            )
        except ValidationError as exc:
            raise self.errors_from(exc) from None

    def errors_from(self, exc: ValidationError, prefix: Location = ()) -> InputError:
        """Turn pydantic's errors into one message with file, line, path and expectation."""
        parts = [
            f"{self.path}:{self.line_of((*prefix, *err['loc']))}: "
            f"at {format_location((*prefix, *err['loc']))}: {_expectation(err)}"
            for err in exc.errors()
        ]
        return InputError(listing(parts))


def listing(problems: list[str]) -> str:
    """Problems one a line, at most MAX_PROBLEMS of them (a file may have thousands)."""
    shown = problems[:MAX_PROBLEMS]
    more = len(problems) - len(shown)
    return "\n".join(shown + ([f"... and {more:,} more problems"] if more else []))


def _yaml_line(exc: yaml.YAMLError, text: str) -> str:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None:
        return f":{mark.line + 1}"
    position = getattr(exc, "position", None)  # a ReaderError: a character YAML does not allow
    return f":{text.count(chr(10), 0, position) + 1}" if isinstance(position, int) else ""


def _problem(exc: yaml.YAMLError) -> str:
    if isinstance(exc, yaml.reader.ReaderError):
        char = chr(exc.character) if isinstance(exc.character, int) else exc.character
        return f"the character {char!r} is not allowed in YAML"
    return str(getattr(exc, "problem", None) or exc).split("\n")[0]


def shown(value: Any, limit: int = 60) -> str:
    """A value as the user wrote it, cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… (cut: {len(text):,} characters in all)"


_KINDS = {
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "text",
    "tuple_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
}


def _expectation(err: Any) -> str:
    kind, msg = err["type"], err["msg"]
    if kind == "extra_forbidden":
        return "unknown key; remove it or check its spelling"
    if kind == "missing":
        return "required key is missing"
    if kind == "value_error":  # our own validators' messages say what they got
        return msg.removeprefix("Value error, ")
    got = err.get("input")
    seen = "" if isinstance(got, (dict, tuple, list)) else f" (got {shown(got)})"
    if kind in _KINDS:
        return f"expected {_KINDS[kind]}{seen}"
    return f"{msg[0].lower()}{msg[1:]}{seen}"
