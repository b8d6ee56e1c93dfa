"""Looking for the answer key where agent code must never reach it (issue 26, item 2): the call
stack, the garbage collector, module globals and the records an agent is handed.

`search(route, ...)` returns what one route reaches, by kind: `scenario` (the truth, the
decision points and their right answers, every agent's spec), `episode` (the tick loop, which
holds the scenario, the world and every agent), `world` (the world's facts), `agent` (another
agent). Objects are recognised by their shape, not their class, so renaming a class hides
nothing. `truth_fields` names what a `Meaning` carries that was copied from the truth.
"""

from __future__ import annotations

import gc
import sys
import sysconfig
import weakref
from collections.abc import Iterable
from typing import Any

ROUTES = ("stack", "gc", "modules", "records")
CONTRACT = ("observe", "decide", "converse", "answer")
MINE = "tests.gallery"  # the gallery's own modules: what they hold is not the episode's
_plain: dict[type, bool] = {}  # type → whether its instances may be one of the episode's objects
_last: list[Any] = []
# where the standard library and installed packages live (their modules are not scanned)
LIBRARIES = tuple(
    {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
)  # a weak reference to the episode the gc route found last (a memo)


def _is_plain(kind: type) -> bool:
    """Instances of a class written in Python (not builtins, not classes themselves)."""
    known = _plain.get(kind)
    if known is None:
        module = kind.__dict__.get("__module__")
        known = isinstance(module, str) and module != "builtins" and not issubclass(kind, type)
        _plain[kind] = known
    return known


def _attrs(obj: Any) -> dict[str, Any] | None:
    if not _is_plain(type(obj)):
        return None
    try:
        found = vars(obj)
    except Exception:  # noqa: BLE001 - a proxy or a half-made object: nothing to read
        return None
    return found if isinstance(found, dict) else None


def kind_of(obj: Any, me: str) -> str | None:
    """What an object is to a peeker, by its shape (None: nothing of the episode's)."""
    attrs = _attrs(obj)
    if attrs is None:
        return None
    if "truth" in attrs and "decision_points" in attrs:
        return "scenario"
    if "scenario" in attrs and "agents" in attrs:
        return "episode"
    if "facts" in attrs and "roads" in attrs:
        return "world"
    name = attrs.get("name")
    if isinstance(name, str) and name != me:
        kind = type(obj)
        if all(callable(getattr(kind, m, None)) for m in CONTRACT):
            return "agent"
    return None


def _plain_ones(objects: Iterable[Any]) -> list[Any]:
    """The objects and what each holds one step away (attributes, a container's items) that
    are instances of Python classes: what else could be one of the episode's objects."""
    out: list[Any] = []
    known = _plain.get
    for obj in objects:
        kind = type(obj)
        plain = known(kind)
        if plain is None:
            plain = _is_plain(kind)
        if plain:
            out.append(obj)
            attrs = _attrs(obj)
            held: Any = attrs.values() if attrs is not None else ()
        elif kind is dict:
            held = list(obj.values())[:1000]
        elif kind is list or kind is tuple or kind is set or kind is frozenset:
            held = list(obj)[:1000]
        else:
            continue
        for item in held:
            inner = known(type(item))
            if inner is None:
                inner = _is_plain(type(item))
            if inner:
                out.append(item)
    return out


def _found(objects: Iterable[Any], me: str, scenario: str) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for held in _plain_ones(objects):
        kind = kind_of(held, me)
        if kind is not None and all(held is not x for x in out.get(kind, [])):
            out.setdefault(kind, []).append(held)
    return out


def on_stack(me: str, scenario: str) -> dict[str, list[Any]]:
    """The frames that called the agent: their locals (`self` of the tick loop, above all)."""
    frame = sys._getframe(1)
    values: list[Any] = []
    while frame is not None:
        if not frame.f_globals.get("__name__", "").startswith(MINE):
            values += list(frame.f_locals.values())
        frame = frame.f_back
    return _found(values, me, scenario)


def in_gc(me: str, scenario: str) -> dict[str, list[Any]]:
    """Every object the garbage collector tracks. The episode this route found last is looked
    at first (is this agent one of its agents?), so the agents of one episode scan the heap
    once between them."""
    episode = _last[0]() if _last else None
    if episode is not None and any(
        getattr(a, "name", None) == me for a in (getattr(episode, "agents", None) or {}).values()
    ):
        return _found([episode], me, scenario)
    found: dict[str, list[Any]] = {}
    known = _plain.get
    for obj in gc.get_objects():  # every tracked object already: no step inside is needed
        plain = known(type(obj))
        if plain is None:
            plain = _is_plain(type(obj))
        if plain and (kind := kind_of(obj, me)) is not None:
            found.setdefault(kind, []).append(obj)
    for candidate in found.get("episode", []):
        try:
            _last[:] = [weakref.ref(candidate)]
        except TypeError:  # a class without weak references: no memo
            _last[:] = []
        break
    return found


def in_modules(me: str, scenario: str) -> dict[str, list[Any]]:
    """The globals of every imported module that is not the standard library's or an installed
    package's (the harness's own and the user's; with `sys`, `builtins` and `__main__`), and
    what each holds one step away."""
    values: list[Any] = []
    for name, module in list(sys.modules.items()):
        if name.startswith(MINE) or not _ours(name, module):
            continue
        attrs = getattr(module, "__dict__", None)
        if isinstance(attrs, dict):
            values += list(attrs.values())
    return _found(values, me, scenario)


def _ours(name: str, module: Any) -> bool:
    """Whether a module is one the episode's code could keep things in: not a library's."""
    if name in ("sys", "builtins", "__main__"):
        return True
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return False
    return not path.startswith(LIBRARIES)


def _held(obj: Any) -> list[Any]:
    """Everything one step inside an object: its attributes or fields, a container's items."""
    attrs = _attrs(obj)
    if attrs is not None:
        held = list(attrs.values())
    elif isinstance(obj, dict):
        held = list(obj.values())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        held = list(obj)
    else:
        held = []
    fields = getattr(type(obj), "__dataclass_fields__", None) or ()
    held += [getattr(obj, f, None) for f in fields]  # frozen records may have no __dict__
    slots = getattr(type(obj), "__slots__", ())
    held += [getattr(obj, f, None) for f in ((slots,) if isinstance(slots, str) else slots)]
    return held[:1000]


def in_records(records: list[Any], me: str, scenario: str, depth: int = 5) -> dict[str, list[Any]]:
    """The records the agent was handed, walked `depth` steps into their fields."""
    seen: set[int] = set()
    layer, values = list(records), []
    for _ in range(depth):
        nxt = []
        for obj in layer:
            if id(obj) in seen or isinstance(obj, (str, bytes, int, float, bool, type(None))):
                continue
            seen.add(id(obj))
            values.append(obj)
            nxt += _held(obj)
        layer = nxt
    return _found(values, me, scenario)


def truth_fields(meaning: Any) -> list[str]:
    """What a handed `Meaning` carries that is the truth's, not the perception's: when it stops
    holding (`valid_to`) and what it replaces (`supersedes`)."""
    return [f"meaning.{f}" for f in ("valid_to", "supersedes") if getattr(meaning, f, None)]


def scenario_of(found: dict[str, list[Any]], name: str) -> Any | None:
    """This episode's scenario among what was found (a scenario, or an episode's)."""
    candidates = list(found.get("scenario", []))
    candidates += [getattr(e, "scenario", None) for e in found.get("episode", [])]
    for candidate in candidates:
        if getattr(candidate, "name", None) == name:
            return candidate
    return None


def meanings_of(found: dict[str, list[Any]], name: str) -> dict[str, Any]:
    """The episode's own `Meaning` of each tracked proposition, if an episode was found."""
    for episode in found.get("episode", []):
        if getattr(getattr(episode, "scenario", None), "name", None) == name:
            return dict(getattr(episode, "meanings", {}) or {})
    return {}
