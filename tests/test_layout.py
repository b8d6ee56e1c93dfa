"""The layout holds: the engine imports no agent (design §1, §2 "Agents are pluggable")."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

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


def test_the_command_line_starts_without_the_heavy_libraries():
    # why the commands import inside their bodies (experiments/cli/main.py): --help and a refused
    # input do not wait for Optuna, Ray, pandas, pyarrow and MLflow
    code = (
        "import sys, experiments.cli.main\n"
        "print(sorted(m for m in ('optuna', 'ray', 'pandas', 'pyarrow', 'mlflow') "
        "if m in sys.modules))"
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


# --- the import graph ----------------------------------------------------------------------
PACKAGES = ("villagelab", "policies", "scenarios", "harness", "scorecards", "experiments")
# what each package may import (design §1: policies and scenarios are leaves, then harness,
# scorecards, experiments; villagelab holds the leaves they share)
MAY_IMPORT = {
    "villagelab": set(),
    "policies": {"villagelab"},
    "scenarios": {"villagelab"},
    "harness": {"villagelab", "policies", "scenarios"},
    "scorecards": {"villagelab", "policies", "scenarios", "harness"},
    "experiments": set(PACKAGES),
}


def module_name(path) -> str:  # type: ignore[no-untyped-def]
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each module of the packages → the modules of the packages it imports (anywhere in it)."""
    files = {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets = set()
        for imported in imported_modules(path):
            # `from a.b import c`: c is a module, or a name in a.b
            while imported and imported not in files:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def test_packages_import_only_downwards():
    wrong = sorted(
        (module, target)
        for module, targets in import_graph().items()
        for target in targets
        if target.split(".")[0] != module.split(".")[0]
        and target.split(".")[0] not in MAY_IMPORT[module.split(".")[0]]
    )
    assert wrong == []


def test_scenarios_and_policies_are_leaves_and_scorecards_write_files_without_the_harness():
    graph = import_graph()
    for module, targets in graph.items():
        top = {t.split(".")[0] for t in targets} - {module.split(".")[0]}
        if module.startswith(("scenarios", "policies")):
            assert top <= {"villagelab"}, module
        if module.startswith("scorecards"):
            assert "harness.engine.store" not in targets, module


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    assert cycles(import_graph()) == []  # issue 16 undid search <-> champion
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [{"a", "b"}]  # the check sees one


def test_importing_any_module_changes_no_environment_and_no_umask():
    code = (
        "import importlib, os, pkgutil\n"
        "env, mask = dict(os.environ), os.umask(0o022)\n"
        "os.umask(mask)\n"
        f"for pkg in {PACKAGES!r}:\n"
        "    m = importlib.import_module(pkg)\n"
        "    for info in pkgutil.walk_packages(m.__path__, pkg + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "changed = sorted(k for k in set(env) | set(os.environ) if env.get(k) != os.environ.get(k))\n"
        "now = os.umask(0o022)\n"
        "print(changed, now == mask)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "[] True"


def test_the_code_is_as_the_formatter_leaves_it_with_no_exemptions():
    # a module is split along its seams, never crammed into a line count by hand-formatting;
    # the tests too (a long command line reads as the shell line it is: shlex.split)
    exempted = {
        f"{p.relative_to(ROOT)}:{n}"
        for folder in (*PACKAGES, "tests")
        for p in (ROOT / folder).rglob("*.py")
        if p.resolve() != Path(__file__).resolve()  # this test names what it looks for
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if "fmt: skip" in line or "fmt: off" in line
    }
    assert exempted == set()


def test_the_simple_agent_uses_only_the_contract():
    own = {
        name
        for name in imported_modules(ROOT / "harness" / "agents" / "simple.py")
        if name.split(".")[0] in PACKAGES
    }
    assert {name.rpartition(".")[0] for name in own} == {"harness.engine.contract"}
