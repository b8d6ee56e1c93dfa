"""The layout holds: the engine imports no agent (DESIGN §1, §2 "Agents are pluggable")."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

from .conftest import ROOT

ENGINE = ROOT / "harness" / "engine"


def imported_modules(path) -> list[str]:  # type: ignore[no-untyped-def]
    """Every module a file imports, relative imports made absolute."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            prefix = ".".join(base) if node.level else ""
            module = ".".join(p for p in (prefix, node.module or "") if p)
            out.extend(f"{module}.{alias.name}" for alias in node.names)
    return out


def test_no_engine_module_imports_an_agent():
    offenders = {
        str(path.relative_to(ROOT)): name
        for path in ENGINE.rglob("*.py")
        for name in imported_modules(path)
        if name.startswith("harness.agents")
    }
    assert offenders == {}


def test_importing_the_engine_loads_no_agent():
    code = (
        "import importlib, pkgutil, sys, harness.engine as e\n"
        "for m in pkgutil.iter_modules(e.__path__): importlib.import_module(f'{e.__name__}.{m.name}')\n"
        "assert 'harness.engine.episode' in sys.modules\n"
        "print([m for m in sys.modules if 'agents' in m])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def scenario_words() -> set[str]:
    """Names only scenarios give meaning to: places, resources, actions (beyond the engine's
    own), predicates and subjects of every built-in scenario, the generated village and the
    test scenarios."""
    from harness.engine.actions import CORE
    from scenarios import builtin_names, load_scenario, village

    scenarios = [load_scenario(n) for n in builtin_names()] + [village(12)]
    scenarios += [load_scenario(p) for p in (ROOT / "tests" / "scenarios").glob("*.yaml")]
    words: set[str] = set()
    for s in scenarios:
        words |= {p.id for p in s.world.places} | {k.resource for k in s.world.stock}
        words |= {e.action for a in s.agents for e in a.errands}
        words |= {t.predicate for t in s.truth} | {t.subject for t in s.truth}
        if s.world.project is not None:
            words |= {s.world.project.action} | {st.uses for st in s.world.project.stages}
    # the engine's own words: its actions, and the ledger's kinds of resource move ('sink' is
    # also the room's washbasin)
    engine = {a.name for a in CORE} | {"source", "sink", "transfer"}
    return {w for w in words if w} - engine


def test_the_engine_names_nothing_a_scenario_defines():
    words = scenario_words()
    assert {"bakery", "lamp", "paint", "buy_bread", "closed_on", "throw_pot"} <= words
    found = {}
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        documented = (ast.Module, ast.ClassDef, ast.FunctionDef)
        docstrings = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, documented) and n.body and isinstance(n.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if id(node) in docstrings:
                continue  # prose that explains the engine, not a name it uses
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                named = words & set(re.findall(r"[a-z][a-z0-9_]*", node.value))
                if named:
                    found[str(path.relative_to(ROOT))] = sorted(named)
    assert found == {}
