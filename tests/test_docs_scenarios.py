"""docs/scenarios.md keeps up with the schema: every field of every model a scenario is made of
has a row in the section of its path, every complete scenario the page shows loads, and every
command it shows names a real subcommand."""

from __future__ import annotations

import itertools
import re
import shlex
import typing
from pathlib import Path

from pydantic import BaseModel

from .conftest import ROOT

DOC_PATH = ROOT / "docs" / "scenarios.md"


def models() -> dict[type[BaseModel], list[str]]:
    """Every pydantic model reachable from Scenario, with the YAML paths it is reached by
    (`agents[].errands[]`, `predicates.<name>`; the top level is '')."""
    from scenarios.model import Scenario

    found: dict[type[BaseModel], list[str]] = {}

    def walk(annotation: object, path: str) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            seen = annotation in found
            found.setdefault(annotation, [])
            if path not in found[annotation]:
                found[annotation].append(path)
            if seen:
                return
            for name, field in annotation.model_fields.items():
                key = field.alias or name  # what a file writes (`from`, not `from_`)
                walk(field.annotation, f"{path}.{key}" if path else key)
            return
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if origin in (tuple, list):
            for arg in args:
                if arg is not Ellipsis:
                    walk(arg, f"{path}[]")
        elif origin is dict:
            walk(args[1], f"{path}.<name>")
        else:  # Optional, unions, Annotated, Literal (whose args are no models)
            for arg in args:
                walk(arg, path)

    walk(Scenario, "")
    return found


def sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) for each part of the page that starts with a heading or with a line
    naming a table (`Stages — `...`:`), up to the next one."""
    starts = [
        m.start() for m in re.finditer(r"^(#+ .*|[A-Z][\w -]* — `[^`]+`.*:)$", text, re.MULTILINE)
    ]
    bounds = [*starts, len(text)]
    return [
        (text[a : text.index("\n", a)], text[text.index("\n", a) : b])
        for a, b in itertools.pairwise(bounds)
    ]


def rows(body: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z_]+)` \|", body, re.MULTILINE))


def test_every_field_of_every_model_has_a_row_where_its_path_is_documented():
    text = DOC_PATH.read_text()
    parts = sections(text)
    found = models()
    assert len(found) > 30  # the walk reached the persona, room and dialogue models
    problems = []
    for model, paths in found.items():
        fields = {field.alias or name for name, field in model.model_fields.items()}
        for name in sorted(fields):  # (a) each field name is on the page at all
            if f"`{name}`" not in text:
                problems.append(f"{model.__name__}.{name} is not on the page")

        def heads(heading: str, paths: list[str] = paths) -> bool:
            if paths == [""]:
                return heading == "### Top level"
            return any(f"`{p}`" in heading for p in paths)

        documented = [rows(body) for heading, body in parts if heads(heading)]
        if not documented:
            problems.append(f"{model.__name__}: no section headed with one of {paths}")
        elif not any(fields <= r for r in documented):
            missing = sorted(fields - max(documented, key=lambda r: len(fields & r)))
            problems.append(f"{model.__name__} at {paths}: no row for {missing}")
    assert not problems, "\n".join(problems)


def yaml_blocks(text: str) -> list[str]:
    return re.findall(r"^```yaml\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def test_every_complete_scenario_on_the_page_loads(tmp_path: Path):
    from scenarios import load_scenario

    complete = [b for b in yaml_blocks(DOC_PATH.read_text()) if b.startswith("name:")]
    assert len(complete) >= 2  # the smallest one and the first real one
    for i, block in enumerate(complete):
        path = tmp_path / f"example_{i}.yaml"
        path.write_text(block)
        load_scenario(path)  # raises InputError, located, if the page is wrong


def command_lines(text: str) -> list[list[str]]:
    # a block may be indented (inside a list item)
    blocks = re.findall(r"^ *```bash\n(.*?)^ *```", text, re.MULTILINE | re.DOTALL)
    return [
        shlex.split(line)
        for block in blocks
        for line in block.splitlines()
        if line.strip().startswith("villagelab ")
    ]


def test_every_command_on_the_page_names_a_real_subcommand():
    from experiments.cli.main import cli

    commands = command_lines(DOC_PATH.read_text())
    assert len(commands) >= 4
    for words in commands:
        command = cli.commands.get(words[1])
        assert command is not None, f"no subcommand {words[1]!r}: {shlex.join(words)}"
        group = getattr(command, "commands", None)
        if group:  # a group (scenario, policy, champion): its own subcommand too
            assert len(words) > 2 and words[2] in group, shlex.join(words)
