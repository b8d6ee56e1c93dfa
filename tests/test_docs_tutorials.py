"""docs/tutorials/bring-your-own-agent.md works as written (issue 32): its marked blocks are
saved and its marked commands run, word for word, in a folder laid out as the README's first
command leaves a checkout (`.venv/bin/villagelab`, `.venv/bin/python`, `policies/`); they
score the example agent, and the LLM agent against the stand-in model. The scenario tutorial's
file validates as its page shows."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT
from .llm.llm_servers import start_standin

PAGE = ROOT / "docs" / "tutorials" / "bring-your-own-agent.md"
MARK = re.compile(r"<!-- tutorial-test: (\S+) -->\n```\w*\n(.*?)```", re.DOTALL)


def marked(name: str) -> list[str]:
    """The fenced blocks the page marks with `<!-- tutorial-test: NAME -->`."""
    return [body for mark, body in MARK.findall(PAGE.read_text()) if mark == name]


def commands(name: str) -> list[str]:
    """The `$ ` lines of the console blocks marked NAME, as a user would type them."""
    return [
        line[2:] for block in marked(name) for line in block.splitlines() if line.startswith("$ ")
    ]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A folder as a user has it after the README's first command: the virtual environment's
    executables (here: this interpreter, with the package importable) and the policy files,
    and the files the tutorial says to save."""
    folder = user_folder(tmp_path, "policies")
    (folder / "example_agent.py").write_text(marked("example_agent.py")[0])
    return folder


def user_folder(tmp_path: Path, *parts: str) -> Path:
    """A folder laid out as the README's first command leaves a checkout: `.venv/bin/python`
    and `.venv/bin/villagelab` (this interpreter, with the package importable) and copies of
    the repository's `parts`."""
    folder = tmp_path / "villagelab"
    for part in parts:
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


def run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "COLUMNS": "200",
        "MLFLOW_DISABLE_TELEMETRY": "true",
    }
    return subprocess.run(
        ["bash", "-c", command],
        check=False,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_tutorials_agent_is_the_example_docs_agents_md_shows():
    agents = (ROOT / "docs" / "agents.md").read_text()
    section = agents[agents.index("## A complete example") :]
    example = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)  # type: ignore[union-attr]
    assert marked("example_agent.py") == [example]


@pytest.mark.slow  # about 25 s: three runs of six episodes
def test_the_tutorials_commands_score_the_example_agent(checkout: Path):
    ran = commands("run")
    assert len(ran) == 3 and all(c.startswith(".venv/bin/villagelab ") for c in ran)
    for command in ran:
        result = run(command, checkout)
        assert result.returncode == 0, (command, result.stdout[-2000:], result.stderr[-2000:])
    manifest = json.loads((checkout / "out" / "gossip" / "manifest.json").read_text())
    assert manifest["agent_path"] == "example_agent:Gossip" and manifest["agent_hash"]
    assert all(e["status"] == "ok" for e in manifest["episodes"])
    card = json.loads((checkout / "out" / "gossip" / "scorecard.json").read_text())
    assert card and (checkout / "out" / "gossip" / "report.html").exists()
    reference = json.loads((checkout / "out" / "reference" / "manifest.json").read_text())
    assert reference["agent_path"] != manifest["agent_path"]


def test_the_tutorials_llm_commands_score_the_llm_agent_on_the_stand_in(checkout: Path):
    # the page has the user start the stand-in in another terminal on port 8765; here it runs
    # on a free port, and the saved config is pointed there
    standin = start_standin(checkout.parent)
    try:
        (config,) = marked("llm.yaml")
        assert "http://127.0.0.1:8765/v1" in config
        (checkout / "llm.yaml").write_text(config.replace(":8765/", f":{standin.port}/"))
        (command,) = commands("llm")
        result = run(command, checkout)
        assert result.returncode in (0, 1), (command, result.stdout[-2000:], result.stderr[-2000:])
        assert standin.stats()["completions"] > 0  # the agent asked the model
    finally:
        standin.kill()
    manifest = json.loads((checkout / "out" / "llm" / "manifest.json").read_text())
    assert manifest["agent"] == "llm"
    assert all(e["status"] == "ok" for e in manifest["episodes"])


def test_the_scenario_tutorials_file_validates_as_the_page_shows(cli, tmp_path: Path):
    page = (ROOT / "docs" / "tutorials" / "write-a-scenario.md").read_text()
    scenario = re.search(r"```yaml\n(.*?)```", page, re.DOTALL).group(1)  # type: ignore[union-attr]
    (tmp_path / "tiny.yaml").write_text(scenario)
    shown = re.search(r"\$ \.venv/bin/villagelab scenario validate tiny\.yaml\n(.*)\n", page)
    assert shown is not None
    result = cli("scenario", "validate", "tiny.yaml", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == shown.group(1)
