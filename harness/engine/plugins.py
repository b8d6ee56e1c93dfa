"""Plug-ins by import path: `module:attribute`, resolved where they are used (a Ray worker
imports the agent itself; nothing but the path travels).

The engine names no plug-in: agents and scenario physics are chosen by data (a command-line
option, a scenario file) and loaded here.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from typing import Any

OPTIONS = "?"  # `module:Factory?{json}`: a factory configured with options (see `configured`)


class PluginError(Exception):
    """An import path that does not lead to an object; the message says what was tried."""


def is_import_path(text: str) -> bool:
    module, sep, attribute = text.partition(":")
    return bool(sep and module and attribute)


def configured(path: str, options: Mapping[str, Any] | None) -> str:
    """An import path that carries options for its factory, as plain JSON: what travels to a
    Ray worker when an agent needs more than its code (the LLM agent: its endpoint and cache).
    `load` calls the factory's `configure(options)` and returns what that gives."""
    if not options:
        return path
    return f"{path}{OPTIONS}{json.dumps(dict(options), sort_keys=True, separators=(',', ':'))}"


def split(reference: str) -> tuple[str, dict[str, Any] | None]:
    """(import path, options or None) of a possibly configured reference."""
    path, sep, options = reference.partition(OPTIONS)
    return path, (json.loads(options) if sep else None)


def load(reference: str) -> Any:
    """The object an import path `module:attribute` (attribute may be dotted) names; for a
    configured reference (`configured`), what the object's `configure(options)` makes."""
    path, options = split(reference)
    obj = _load(path)
    if options is None:
        return obj
    configure = getattr(obj, "configure", None)
    if not callable(configure):
        raise PluginError(f"{path!r} takes no options (it has no configure())")
    return configure(options)


def _load(path: str) -> Any:
    if not is_import_path(path):
        raise PluginError(f"{path!r} is not an import path; expected module:attribute")
    module_name, _, attribute = path.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise PluginError(f"{path!r}: cannot import module {module_name!r} ({exc})") from None
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PluginError(f"{path!r}: module {module_name!r} has no {attribute!r}") from None
    return obj
