"""The documentation site (issue 32): its reference pages are written from the code at build
time (docs/hooks/reference.py), so what the code declares — a command's option, a registered
metric, a whitelisted parameter, a trace table, an exit code — is on the site, and mkdocs.yml
lists every page. The strict build itself runs in .ci/run (and below, where mkdocs is
installed: a broken link fails it)."""

from __future__ import annotations

import ast
import html
import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import click
import pytest
import yaml

from .conftest import ROOT

HOOKS = ROOT / "docs" / "hooks"


def load_reference() -> ModuleType:
    """docs/hooks/reference.py, which is no package's module: loaded from its file."""
    spec = importlib.util.spec_from_file_location("docs_reference", HOOKS / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = load_reference()


def test_a_new_option_and_a_nested_command_appear_with_default_and_help():
    @click.group()
    def tool() -> None:
        """A tool."""

    @tool.group()
    def things() -> None:
        """Things to do."""

    @things.command()
    @click.option("--frobnicate-level", type=click.IntRange(1, 9), default=4, help="how hard")
    @click.option("--dry", is_flag=True, help="say, do not do")
    @click.option("--how", type=click.Choice(["fast", "slow"]), default="slow", metavar="WAY")
    @click.argument("target")
    def frob(frobnicate_level: int, dry: bool, how: str, target: str) -> None:
        """Frob the TARGET."""

    page = reference.commands_page(tool, "tool")
    assert "### `tool things frob`" in page
    assert "tool things frob [OPTIONS] TARGET" in page
    assert "Frob the TARGET." in page
    assert "| `--frobnicate-level` | integer, 1 to 9 | 4 | how hard |" in page
    assert "| `--dry` | flag | off | say, do not do |" in page
    assert "| `--how` | fast \\| slow | slow |  |" in page  # one cell: the pipe escaped once
    assert "| `TARGET` | text | required |  |" in page
    assert "| [`tool things frob`](#tool-things-frob) | Frob the TARGET. |" in page


def test_every_command_and_option_of_the_command_line_is_on_the_page():
    from experiments.cli.main import cli

    page = reference.commands_page()

    def walk(command: click.Command, path: str) -> None:
        assert f"`{path}`" in page, path
        for param in command.params:
            if isinstance(param, click.Option):
                assert f"| `{' / '.join([*param.opts, *param.secondary_opts])}` |" in page, (
                    path,
                    param.opts,
                )
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}")

    walk(cli, "villagelab")
    assert "| `--seeds` | text | 0-4 |" in page  # run's default, as click holds it


def test_every_registered_metric_appears_with_its_definition_and_declaring_scenarios(
    monkeypatch,
):
    from scorecards.metrics import _base

    def section(page: str, name: str) -> str:
        start = page.index(f"### `{name}`\n")
        end = page.find("\n### ", start + 1)
        return page[start : end if end > 0 else None]

    page = reference.metrics_page()
    for name, metric in _base.METRICS.items():
        assert f"| [`{name}`](#{name}) |" in page, name  # the table at a glance
        assert html.escape(metric.definition, quote=False) in section(page, name), name
    secret = yaml.safe_load((ROOT / "scenarios" / "library" / "secret.yaml").read_text())
    assert "containment" in secret["metrics"]
    assert "`secret`" in section(page, "containment").split("**Declared by:**")[1]
    assert "| `secret` |" in page and "[containment](#containment)" in page  # by scenario

    new = replace(next(iter(_base.METRICS.values())), name="brand_new_metric", definition="new")
    monkeypatch.setitem(_base.METRICS, "brand_new_metric", new)
    added = section(reference.metrics_page(), "brand_new_metric")
    assert "new\n" in added and "not in the default scorecard" in added
    assert "**Declared by:** none" in added


def test_every_whitelisted_parameter_appears_with_its_default_and_meaning(monkeypatch):
    from policies import whitelist
    from policies.param import Param

    page = reference.policy_page()
    for p in whitelist.WHITELIST:
        row = next(line for line in page.splitlines() if line.startswith(f"| `{p.name}` |"))
        assert f"| `{reference._value(p.default)}` |" in row and p.meaning[:40] in row, p.name
    assert "| `memory.keep_source` | true or false | `true` | `false` / `true` |" in page
    from scenarios.suite import SUITES, load_suite

    for suite, path in SUITES.items():  # what a suite's search leaves alone (`unscored:`)
        for name in load_suite(path).unscored:
            row = next(line for line in page.splitlines() if line.startswith(f"| `{name}` |"))
            assert f"not searched on the {suite} suite" in row, (suite, name)

    added = Param("brand.new_knob", "int", 3, "a knob just added", low=1, high=5)
    monkeypatch.setattr(whitelist, "WHITELIST", (*whitelist.WHITELIST, added))
    page = reference.policy_page()
    assert "## brand" in page
    assert "| `brand.new_knob` | an integer from 1 to 5 | `3` | unset / unset | a knob just" in page


def test_every_trace_table_and_column_appears_with_the_schemas_comments():
    from harness.engine.schema import TABLES

    page = reference.traces_page()
    for name, schema in TABLES.items():
        section = page[page.index(f"## `{name}`") :]
        for field in schema:
            if field.name not in ("scenario", "seed", "tick", "event_id"):
                assert f"| `{field.name}` | `{field.type}` |" in section, (name, field.name)
    assert "| `supersedes` | `string` | the tracked proposition this one replaces |" in page
    assert "The scenario's ground truth, written once per episode." in page
    truth = page[page.index("## `truth`") : page.index("## `decision_points`")]
    assert "[containment](metrics.md#containment)" in truth  # a metric that reads it


def test_the_schemas_comments_are_read_above_a_table_and_beside_or_above_a_column():
    source = (
        "T = {\n"
        "    # the first table\n"
        "    # over two lines\n"
        '    "one": s(\n'
        '        f("a", x()),  # beside a\n'
        "        # above b\n"
        '        f("b", x()),\n'
        '        f("c", x()),\n'
        "    ),\n"
        "}\n"
    )
    tables, columns = reference.schema_notes(source)
    assert tables == {"one": "the first table over two lines"}
    assert columns == {("one", "a"): "beside a", ("one", "b"): "above b", ("one", "c"): ""}


def literal_exits() -> set[int]:
    """Every integer literal a module of experiments/ exits with (sys.exit, os._exit)."""
    found = set()
    for path in (ROOT / "experiments").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("exit", "_exit")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, int)
            ):
                found.add(node.args[0].value)
    return found


def test_every_exit_code_the_commands_use_is_named_and_on_the_page():
    from experiments.cli.exits import EXIT_CODES
    from experiments.evaluation import gate

    used = literal_exits() | {gate.PASS, gate.REGRESSION, gate.ERROR, gate.INCOMPATIBLE}
    assert {0, 1, 2, 3, 130} <= used
    assert used <= set(EXIT_CODES), used - set(EXIT_CODES)
    page = reference.exit_codes_page()
    for code, (name, _) in EXIT_CODES.items():
        assert f"| `{code}` | {name} |" in page


def nav_pages(nav: list[Any]) -> list[str]:
    """The pages a nav lists, sections flattened."""
    pages = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_the_nav_lists_every_page_and_every_generated_reference_page():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages = nav_pages(config["nav"])
    assert [next(iter(i)) for i in config["nav"]] == [
        "Home",
        "Tutorials",
        "How-to guides",
        "Explanation",
        "Reference",
    ]
    for doc in sorted((ROOT / "docs").rglob("*.md")):
        page = doc.relative_to(ROOT / "docs").as_posix()
        assert page in pages, page
    for name in ["index.md", *reference.PAGES]:
        assert f"reference/{name}" in pages
        assert not (ROOT / "docs" / "reference" / name).exists()  # generated, never checked in
    assert "docs/hooks/gen_reference.py" in str(config["plugins"])


def test_a_broken_link_fails_the_strict_build(tmp_path: Path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocs_gen_files")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    index = tmp_path / "docs" / "index.md"
    index.write_text(index.read_text() + "\nSee [nowhere](no-such-page.md).\n")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "s")],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "NO_MKDOCS_2_WARNING": "1",
            "DISABLE_MKDOCS_2_WARNING": "true",
            "VILLAGELAB_SCREENSHOTS": "off",  # the checked-in pictures: no search to photograph
        },
        timeout=300,
    )
    assert result.returncode != 0
    assert "no-such-page.md" in result.stderr
