"""The layout holds: the engine imports no agent (DESIGN §1, §2 "Agents are pluggable")."""

from __future__ import annotations

import ast
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
    code = "import sys, harness.engine; print([m for m in sys.modules if 'agents' in m])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
