"""Generated mutations of the files a user gives (hypothesis strategies), each with what an
independent oracle expects of it: `REFUSE` (the file breaks a documented rule: a wrong type,
no coercion, a value out of range, an unknown key, a duplicate id, a non-standard tag, an
alias bomb, bytes that are not UTF-8 text), `ACCEPT` (a valid file) or `EITHER` (the oracle
does not judge: then only a clean refusal or a correct run counts).

A mutation is a tree edit of a valid file (the baseline policy, a library scenario) or a
byte-level damage of its text."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from policies import WHITELIST

ROOT = Path(__file__).resolve().parent.parent.parent
POLICY = ROOT / "policies" / "baseline.yaml"
SCENARIOS = sorted((ROOT / "scenarios" / "library").glob("*.yaml"))

REFUSE, ACCEPT, EITHER = "refuse", "accept", "either"


@dataclass(frozen=True)
class Mutation:
    what: str  # a short description, for a failure's report
    data: bytes
    expect: str  # REFUSE / ACCEPT / EITHER


class _Quoting(yaml.SafeDumper):
    """Every string double-quoted: '5e-1' stays a string under any YAML version's rules."""


_Quoting.add_representer(
    str, lambda dumper, text: dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"')
)


def dump(tree: Any) -> bytes:
    return yaml.dump(tree, Dumper=_Quoting, sort_keys=False, allow_unicode=True).encode()


def _paths(tree: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a node of the tree (the root excluded)."""
    found: list[tuple[Any, ...]] = []
    items = (
        tree.items()
        if isinstance(tree, dict)
        else enumerate(tree)
        if isinstance(tree, list)
        else []
    )
    for key, value in items:
        found.append((*prefix, key))
        found += _paths(value, (*prefix, key))
    return found


def _get(tree: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def _set(tree: Any, path: tuple[Any, ...], value: Any) -> Any:
    tree = copy.deepcopy(tree)
    _get(tree, path[:-1])[path[-1]] = value
    return tree


def _delete(tree: Any, path: tuple[Any, ...]) -> Any:
    tree = copy.deepcopy(tree)
    del _get(tree, path[:-1])[path[-1]]
    return tree


def _kind(value: Any) -> str:
    return "bool" if isinstance(value, bool) else type(value).__name__


# values of another type than the one a leaf holds: strict loading coerces none of them
OTHER_VALUES = {
    "int": ["7", "0x10", 7.5, True, None, [1], {"a": 1}],
    "float": ["0.5", "5e-1", True, None, [0.5], "nan"],
    "bool": ["true", "yes", 1, 0, None, "on"],
    "str": [3, 2.5, True, None, ["x"], {"x": 1}],
    # an optional field left empty (`origin: null`): a value may be valid there (an agent id)
    "NoneType": ["ana", "nobody", 3, True, ["x"], {"x": 1}],
}

# byte-level damage and YAML features a user file has no business using
RAW = [
    ("empty file", lambda t: b"", EITHER),
    ("UTF-16", lambda t: t.decode().encode("utf-16"), REFUSE),
    ("a NUL byte", lambda t: t[: len(t) // 2] + b"\x00" + t[len(t) // 2 :], REFUSE),
    ("invalid UTF-8", lambda t: t[: len(t) // 3] + b"\xff\xfe" + t[len(t) // 3 :], REFUSE),
    ("a python tag", lambda t: b"x: !!python/object/apply:os.system ['true']\n" + t, REFUSE),
    ("an unknown tag", lambda t: b"!custom\n" + t, REFUSE),
    (
        "an alias bomb",
        lambda t: (
            b'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
            + b"".join(
                f"{c}: &{c} [{','.join(['*' + p] * 9)}]\n".encode()
                for p, c in zip("abcdefgh", "bcdefghi", strict=True)
            )
        ),
        REFUSE,
    ),
    ("deep nesting", lambda t: b"x: " + b"[" * 5000 + b"]" * 5000 + b"\n", REFUSE),
    ("markup in a key", lambda t: b"'[/]': 1\n[bold]x[/bold]: '[/]'\n" + t, REFUSE),
    ("a terminal escape", lambda t: b"'\\e[2J': 1\n" + t, REFUSE),
    ("a list at the top", lambda t: b"- 1\n- 2\n", REFUSE),
    ("a scalar at the top", lambda t: b"42\n", REFUSE),
    ("a duplicate key", lambda t: t + t.split(b"\n", 1)[0] + b"\n", EITHER),
    ("many unknown keys", lambda t: t + b"".join(b"k%d: 1\n" % i for i in range(50_000)), REFUSE),
]


@st.composite
def raw_damage(draw: st.DrawFn, text: bytes) -> Mutation:
    """Damage of the file's bytes: a cut, a flipped byte, or one of RAW."""
    choice = draw(st.integers(0, len(RAW) + 1))
    if choice == len(RAW):
        at = draw(st.integers(0, len(text)))
        return Mutation(f"cut at byte {at}", text[:at], EITHER)
    if choice == len(RAW) + 1:
        at = draw(st.integers(0, len(text) - 1))
        byte = draw(st.integers(0, 255))
        return Mutation(
            f"byte {at} set to {byte}", text[:at] + bytes([byte]) + text[at + 1 :], EITHER
        )
    what, damage, expect = RAW[choice]
    return Mutation(what, damage(text), expect)


# --- policies ------------------------------------------------------------------------------------
BY_NAME = {p.name: p for p in WHITELIST}


def policy_verdict(data: Any) -> str:
    """The oracle for a policy tree: the whitelist's rules, re-stated here on their own."""
    if not isinstance(data, dict):
        return REFUSE
    for family, group in data.items():
        if not isinstance(family, str) or not isinstance(group, dict):
            return REFUSE
        for key, value in group.items():
            p = BY_NAME.get(f"{family}.{key}")
            if value is None:  # an empty value: a slip, not "the default"
                return REFUSE
            if p is None:
                return REFUSE
            if p.kind == "bool" and not isinstance(value, bool):
                return REFUSE
            if p.kind == "categorical" and value not in p.choices:
                return REFUSE
            if p.kind in ("int", "float"):
                ok = (int, float) if p.kind == "float" else (int,)
                if isinstance(value, bool) or not isinstance(value, ok):
                    return REFUSE
                if math.isnan(value) or not p.low <= value <= p.high:  # NaN, or out of range
                    return REFUSE
    return ACCEPT


def _policy_value(draw: st.DrawFn, p: Any) -> Any:
    if p.kind == "bool":
        return draw(st.booleans())
    if p.kind == "categorical":
        return draw(st.sampled_from([*p.choices, p.choices[0].upper(), "", "[/]"]))
    span = p.high - p.low
    if p.kind == "int":
        return draw(st.integers(int(p.low - span), int(p.high + span)))
    return draw(
        st.one_of(
            st.floats(p.low - span, p.high + span),
            st.sampled_from([float("inf"), float("-inf"), float("nan"), 1e308, -0.0]),
        )
    )


@st.composite
def policy_mutations(draw: st.DrawFn) -> Mutation:
    text = POLICY.read_bytes()
    tree = yaml.safe_load(text)
    how = draw(st.sampled_from(["value", "type", "unknown", "delete", "family", "raw"]))
    leaves = [path for path in _paths(tree) if len(path) == 2]
    if how == "raw":
        return draw(raw_damage(text))
    path = draw(st.sampled_from(leaves))
    if how == "value":
        p = BY_NAME[".".join(path)]
        value = _policy_value(draw, p)
        tree = _set(tree, path, value)
        what = f"{'.'.join(path)} = {value!r}"
    elif how == "type":
        value = draw(st.sampled_from(OTHER_VALUES[_kind(_get(tree, path))]))
        tree = _set(tree, path, value)
        what = f"{'.'.join(path)} = {value!r} (another type)"
    elif how == "unknown":
        name = draw(st.sampled_from(["capacty", "topk", "x", "memory", "1", "__class__"]))
        at = path[:1] if draw(st.booleans()) else ()
        tree = _set(tree, (*at, name), 1)
        what = f"unknown key {name!r} under {at or 'the top'}"
    elif how == "delete":
        target = path if draw(st.booleans()) else path[:1]
        tree = _delete(tree, target)
        what = f"{'.'.join(target)} deleted"
    else:
        value = draw(st.sampled_from([None, [], "x", 1, {}]))
        tree = _set(tree, path[:1], value)
        what = f"family {path[0]} = {value!r}"
    return Mutation(what, dump(tree), policy_verdict(tree))


# --- scenarios -----------------------------------------------------------------------------------
def _free_scalar(path: tuple[Any, ...]) -> bool:
    """A value the scenario schema types as any scalar: `world.facts`, an event's `sets`."""
    return path[:2] == ("world", "facts") or (
        len(path) == 4 and path[0] == "events" and path[2] == "sets"
    )


@st.composite
def scenario_mutations(draw: st.DrawFn) -> Mutation:
    source = draw(st.sampled_from(SCENARIOS))
    text = source.read_bytes()
    tree = yaml.safe_load(text)
    how = draw(
        st.sampled_from(["type", "number", "string", "delete", "unknown", "dup", "raw", "meaning"])
    )
    if how == "raw":
        mutation = draw(raw_damage(text))
        return Mutation(f"{source.stem}: {mutation.what}", mutation.data, mutation.expect)
    if how == "meaning":
        what, tree = draw(meaning_damage(source, tree))
        return Mutation(f"{source.stem}: {what}", dump(tree), REFUSE)
    paths = _paths(tree)
    leaves = [p for p in paths if not isinstance(_get(tree, p), (dict, list))]
    expect = EITHER
    if how == "type":
        path = draw(st.sampled_from(leaves))
        value = draw(st.sampled_from(OTHER_VALUES[_kind(_get(tree, path))]))
        # a string where a number was, a number where text was: no coercion; an optional
        # field's value is not judged (its type is not known from the file), nor a scalar
        # where the schema takes any scalar (a world fact, what an event sets)
        free = _free_scalar(path) and not isinstance(value, (list, dict))
        expect = (
            REFUSE if value is not None and _get(tree, path) is not None and not free else EITHER
        )
        what = f"{path} = {value!r} (another type)"
    elif how == "number":
        numeric = [
            p
            for p in leaves
            if isinstance(_get(tree, p), (int, float)) and not isinstance(_get(tree, p), bool)
        ]
        path = draw(st.sampled_from(numeric or leaves))
        value = draw(
            st.one_of(
                st.sampled_from([0, -1, -0.5, 10**9, 10**18, 1e308, float("inf"), float("nan")]),
                st.integers(-1000, 1000),
                st.floats(-10, 10, allow_nan=False),
            )
        )
        if isinstance(value, float) and not math.isfinite(value):
            expect = REFUSE
        what = f"{path} = {value!r}"
    elif how == "string":
        strings = [p for p in leaves if isinstance(_get(tree, p), str)]
        path = draw(st.sampled_from(strings))
        value = draw(
            st.sampled_from(
                [
                    "nowhere",
                    "",
                    "x" * 300,
                    "[/]",
                    "day 99999 00:00",
                    "99999h",
                    "-5min",
                    "ana",
                    "\u202e",
                ]
            )
        )
        what = f"{path} = {value!r}"
    elif how == "delete":
        path = draw(st.sampled_from(paths))
        what = f"{path} deleted"
        tree = _delete(tree, path)
        return Mutation(f"{source.stem}: {what}", dump(tree), EITHER)
    elif how == "unknown":
        mappings = [()] + [p for p in paths if isinstance(_get(tree, p), dict)]
        at = draw(st.sampled_from(mappings))
        # skill → level: any name is valid there; a fact or what an event sets is refused
        # (it names no thing.attribute)
        free = at and at[-1] == "abilities"
        path, value, expect = (*at, "surprise_key"), 1, EITHER if free else REFUSE
        what = f"unknown key under {at or 'the top'}"
    else:  # a list element with an id, twice: ids must be unique
        with_ids = [
            p
            for p in paths
            if isinstance(_get(tree, p), dict) and "id" in _get(tree, p) and isinstance(p[-1], int)
        ]
        if not with_ids:
            return Mutation(f"{source.stem}: unchanged", text, ACCEPT)
        path = draw(st.sampled_from(with_ids))
        listed = copy.deepcopy(_get(tree, path[:-1]))
        listed.append(copy.deepcopy(listed[path[-1]]))
        path, value, expect = path[:-1], listed, REFUSE
        what = f"{path} element {listed[-1]['id']!r} twice"
    tree = _set(tree, path, value)
    return Mutation(f"{source.stem}: {what}", dump(tree), expect)


def _moment(minute: int) -> str:
    day, rest = divmod(minute, 24 * 60)
    return f"day {day + 1} {rest // 60:02d}:{rest % 60:02d}"


# names a scenario file might carry that no registry holds: modules that run code on import
UNREGISTERED = ("this", "venv.__main__", "antigravity", "os", "harness.worlds")


MEANINGS = (
    "knows_stock",
    "metric_twice",
    "knows_where",
    "predicate",
    "phrase",
    "physics",
    "misspelt_fact",
    "validity",
    "sign_until",
)
PHRASES = ("{object.__class__.__mro__}", "{object[0]}", "{0}")
# what each refusal says, at which place in the file
SAYS = {
    "knows_stock": ("knows_stock[0].holder", "unknown holder 'nowhere'"),
    "metric_twice": ("at metrics[", "is listed twice"),
    "knows_where": ("knows_where.buy_braed", "unknown action 'buy_braed'"),
    "predicate": ("at predicates.closed_onn", "the predicate of a tracked proposition"),
    "phrase": ("phrase", "a phrase may name only {object}"),
    "physics": ("at physics[", "no physics plug-in named"),
    "misspelt_fact": (".sets.", "did you mean"),
    "validity": ("truth[0].valid_to", "at or after its start"),
    "sign_until": ("until", "at or after the event's moment"),
}


def meaning(op: str, source: Path, tree: Any, pick: int = 0) -> tuple[str, Any]:
    """A copy of `tree` (a scenario file's data) that is well-formed and means something
    impossible (issue 29), by operator `op`; each is refused with a located message."""
    from scenarios import load_scenario

    start = load_scenario(source).start
    tree = copy.deepcopy(tree)
    agent = tree["agents"][0]
    place = tree["world"]["places"][0]["id"]
    truth = tree["truth"][0] if tree.get("truth") else None
    if op == "knows_stock":
        agent.setdefault("knows_stock", []).insert(
            0, {"resource": "bread", "holder": "nowhere", "count": 1}
        )
        return "knows_stock names an unknown holder", tree
    if op == "metric_twice":
        tree["metrics"].append(tree["metrics"][0])
        return "a metric listed twice", tree
    if op == "knows_where":
        agent["knows_where"] = {"buy_braed": [place]}
        return "a misspelt action in knows_where", tree
    if op == "predicate":
        tree.setdefault("predicates", {})["closed_onn"] = {"phrase": "closed {object}"}
        return "a predicate no tracked proposition has", tree
    if op == "phrase":
        name = truth["predicate"] if truth else "closed_onn"
        field = PHRASES[pick % len(PHRASES)]
        tree.setdefault("predicates", {})[name] = {"phrase": field}
        return f"a phrase {field}", tree
    if op == "physics":
        name = UNREGISTERED[pick % len(UNREGISTERED)]
        tree["physics"] = [*tree.get("physics", []), name]
        return f"physics names {name!r}, not registered", tree
    if op == "misspelt_fact":
        misspelt = {"id": "crafted_closure", "at": _moment(start + 60), "kind": "set_facts"}
        misspelt["sets"] = {f"{place}.passabel": False}
        tree.setdefault("events", []).append(misspelt)
        return "an event that sets a misspelt fact", tree
    assert truth is not None, f"{op} needs a scenario with a truth"
    if op == "validity":
        truth.update(valid_from=_moment(start + 60), valid_to=_moment(start + 30))
        return "a truth valid from after it is valid to", tree
    sign = {
        "id": "crafted_sign",
        "at": _moment(start + 60),
        "kind": "sign",
        "place": place,
        "proposition": truth["proposition"],
        "value": "true",
        "until": _moment(start + 30),
    }
    tree.setdefault("events", []).append(sign)
    return "a sign whose until is before its at", tree


@st.composite
def meaning_damage(draw: st.DrawFn, source: Path, tree: Any) -> tuple[str, Any]:
    ops = MEANINGS if tree.get("truth") else MEANINGS[:-2]
    return meaning(draw(st.sampled_from(ops)), source, tree, draw(st.integers(0, 4)))
