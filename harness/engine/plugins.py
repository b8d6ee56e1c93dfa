"""Plug-ins by import path: `module:attribute`, resolved where they are used (a Ray worker
imports the agent itself; nothing but the path travels).

The engine names no plug-in: agents and scenario physics are chosen by data (a command-line
option, a scenario file) and loaded here.
"""

from __future__ import annotations

import importlib
from typing import Any


class PluginError(Exception):
    """An import path that does not lead to an object; the message says what was tried."""


def is_import_path(text: str) -> bool:
    module, sep, attribute = text.partition(":")
    return bool(sep and module and attribute)


def load(path: str) -> Any:
    """The object an import path `module:attribute` (attribute may be dotted) names."""
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
