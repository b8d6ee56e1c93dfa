"""docs/tutorials/search-your-own-agent.md works as written (issue 47): its marked commands run,
word for word, in a folder laid out as the README's first command leaves a checkout, with the
example agent's folder `examples/` in it; they validate, run, sweep, search, export and gate
the agent's own knobs and prompt family, and the gate exits 3 once a prompt file is edited."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import ROOT
from .test_docs_tutorials import run

PAGE = ROOT / "docs" / "tutorials" / "search-your-own-agent.md"
MARK = re.compile(r"<!-- tutorial-test: own -->\n```console\n(.*?)```", re.DOTALL)


def commands() -> list[str]:
    return [
        line[2:]
        for block in MARK.findall(PAGE.read_text())
        for line in block.splitlines()
        if line.startswith("$ ")
    ]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    folder = tmp_path / "villagelab"
    for part in ("policies", "examples"):
        shutil.copytree(ROOT / part, folder / part)
    bin_ = folder / ".venv" / "bin"
    bin_.mkdir(parents=True)
    for name, target in {
        "python": sys.executable,
        "villagelab": str(Path(sys.executable).with_name("villagelab")),
    }.items():
        (bin_ / name).write_text(f'#!/bin/sh\nexec "{target}" "$@"\n')
        (bin_ / name).chmod(0o755)
    return folder


@pytest.mark.slow  # a run, a sweep, a search of 8 trials and three gates: a few minutes
def test_the_tutorials_commands_search_and_gate_the_agents_own_surface(checkout: Path):
    steps = commands()
    assert len(steps) == 11 and sum(c.startswith(".venv/bin/villagelab ") for c in steps) == 10
    edit = steps.index('echo "Honestly." >> examples/gossip_wording/hedged.txt')
    for command in steps:
        result = run(command, checkout)
        said = (command, result.stdout[-3000:], result.stderr[-3000:])
        if steps.index(command) > edit:  # the gate after the prompt file was edited
            assert result.returncode == 3, said
            assert "(gossip.wording/hedged.txt)" in result.stderr, said
            continue
        assert result.returncode == 0, said
        if " search " in command:
            assert "4 of them its own" in result.stderr, said
        if " run " in command:  # its own table, written and summed
            assert "usage_gossip_retellings.words:" in result.stdout, said
            assert list((checkout / "out/gossip/traces/gossip_retellings").glob("*/*.parquet"))
    exported = yaml.safe_load((checkout / "my_gossip.yaml").read_text())
    assert set(exported["gossip"]) == {"retell_limit", "name_source", "detour_doubt", "wording"}
