"""A scenario file runs no code (issue 29): its `physics:` names are looked up in a registry
(the built-in worlds and the `villagelab.physics` entry-point group) and nothing that is not
registered is ever imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

# modules that do something when imported: make virtual environments in the current folder,
# print the Zen of Python, open a web browser; `os` is always importable and harmless; the
# planted module writes a file when it is imported
PLANTED = ("venv.__main__", "this", "antigravity", "os", "planted_side_effect")


def hostile(tmp_path: Path, names: tuple[str, ...]) -> Path:
    """replan_bridge.yaml with `names` after its own physics, and the planted module beside it."""
    (tmp_path / "planted_side_effect.py").write_text(
        "from pathlib import Path\n\nPath(__file__).with_name('RAN').write_text('imported')\n"
    )
    text = (ROOT / "scenarios" / "library" / "replan_bridge.yaml").read_text()
    listed = ", ".join(("harness.worlds.village", *names))
    lines = [f"physics: [{listed}]" if ln.startswith("physics:") else ln for ln in text.split("\n")]
    path = tmp_path / "p.yaml"
    path.write_text("\n".join(lines))
    return path


def test_a_scenario_naming_unregistered_modules_is_refused_and_imports_none_of_them(tmp_path):
    path = hostile(tmp_path, PLANTED)
    probe = (
        "import sys\n"
        "from harness.engine.validation import load_checked\n"
        "from villagelab.yamlsource import InputError\n"
        "before = set(sys.modules)\n"
        "try:\n"
        f"    load_checked({str(path)!r})\n"
        "except InputError as exc:\n"
        "    print(exc)\n"
        "print('NEW', sorted(m for m in set(sys.modules) - before if m.split('.')[0] in\n"
        "      ('venv', 'this', 'antigravity', 'planted_side_effect', 'webbrowser')))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    out = subprocess.run(
        [sys.executable, "-c", probe],
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert "NEW []" in out.stdout, out.stdout
    for i, name in enumerate(PLANTED, start=1):
        assert f"at physics[{i}]: no physics plug-in named {name!r}" in out.stdout, out.stdout
    assert "registered: harness.worlds.village, harness.worlds.room" in out.stdout
    assert "Zen of Python" not in out.stdout + out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.yaml", "planted_side_effect.py"]


@pytest.mark.parametrize("command", ["validate", "run"])
def test_the_commands_refuse_it_with_exit_2_and_write_nothing(cli, tmp_path, command):
    path = hostile(tmp_path, PLANTED)
    args = {
        "validate": ["scenario", "validate", str(path)],
        "run": [
            "run",
            "--scenario",
            str(path),
            "--policy",
            str(ROOT / "policies" / "careful.yaml"),
            "--seeds",
            "0",
            "--serial",
            "--out",
            str(tmp_path / "out"),
        ],
    }[command]
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    result = cli(*args, cwd=tmp_path, env=env)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "p.yaml:9: at physics[1]: no physics plug-in named 'venv.__main__'" in result.stderr
    assert "Traceback" not in result.stderr and "Zen of Python" not in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.yaml", "planted_side_effect.py"]


def plugin_site(tmp_path: Path) -> Path:
    """A bare .dist-info, as pip would leave one, registering tests.fixtures.waving."""
    info = tmp_path / "site" / "waving_world-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: waving-world\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[villagelab.physics]\nwaving = tests.fixtures.waving\n")
    return info.parent


def test_an_installed_package_registers_a_world_through_the_entry_point_group(
    monkeypatch, tmp_path
):
    from harness.engine.actions import registry_for
    from harness.worlds.registry import registered
    from scenarios import load_scenario

    scenario = load_scenario("public_fact")
    waving = scenario.model_copy(update={"physics": (*scenario.physics, "waving")})
    with pytest.raises(Exception, match="no physics plug-in named 'waving'"):
        registry_for(waving)
    monkeypatch.syspath_prepend(str(plugin_site(tmp_path)))
    assert registered()["waving"] == "tests.fixtures.waving"
    assert "wave" in registry_for(waving)
    # a package cannot take a built-in name
    assert registered()["harness.worlds.village"] == "harness.worlds.village"


def test_an_episode_refuses_an_unregistered_name_it_was_handed_without_validation():
    """The rule holds where the import happens, not only in the validator."""
    from harness.engine.actions import registry_for
    from harness.engine.plugins import PluginError
    from scenarios import load_scenario

    scenario = load_scenario("public_fact")
    this = scenario.model_copy(update={"physics": (*scenario.physics, "this")})
    before = "this" in sys.modules
    with pytest.raises(PluginError, match="no physics plug-in named 'this'"):
        registry_for(this)
    assert ("this" in sys.modules) == before


@pytest.mark.parametrize(
    "phrase",
    [
        "{object.__class__.__mro__}",
        "{object.real}",
        "{object[0]}",
        "{0}",
        "{}",
        "{object!r}",
        "{object:>999999999}",
        "{subject}",
        "closed {",
    ],
)
def test_the_phrase_formatter_takes_named_fields_only(phrase):
    from villagelab.phrases import fill, problem

    assert problem(phrase) is not None
    with pytest.raises(ValueError, match=r"a phrase may name only \{object\}"):
        fill(phrase, object="x")


def test_the_phrase_formatter_fills_plain_templates():
    from villagelab.phrases import fill

    assert fill("closed on day {object}", object=2) == "closed on day 2"
    assert fill("{{literal}} {object}", object="x") == "{literal} x"
    assert fill("no field", object="x") == "no field"


def test_a_prompt_variant_is_one_of_the_files_never_a_path():
    from harness.agents.llm import prompts

    assert prompts.load("answer", "careful").variant == "careful"
    for variant in ("../answer/careful", "/etc/passwd", "nosuch"):
        with pytest.raises(KeyError, match="expected one of careful, direct"):
            prompts.load("answer", variant)


def test_a_metric_a_scenario_lists_is_a_registered_one():
    """Metrics are names in the scorecard's registry: a scenario names one, never a function."""
    from typing import get_args

    from scenarios.model import MetricName
    from scorecards.metrics import METRICS

    assert set(get_args(MetricName)) <= set(METRICS)
