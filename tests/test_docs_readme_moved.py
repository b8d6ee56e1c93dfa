"""Nothing the README explained was lost when it was cut to a first contact (issue 32): each
section it had before has a home — a page that exists, holds that section's key content, and
is linked from the README."""

from __future__ import annotations

import re

import pytest

from .conftest import ROOT

# the README's `##`/`###` sections before issue 32 → (their page now, key content: the
# section's first sentence or its defining lines, as they read there)
SECTIONS = {
    "What it is": (
        "README.md",
        ["An auto-research experiment harness for long-horizon, stateful multi-agent systems."],
    ),
    "Layout": (
        "docs/explanation/layout.md",
        [
            "## Layout",
            "harness/ engine/: the agent contract (contract.py;",
            "Layering: `policies`, `scenarios` → `harness` → `scorecards` → `experiments`",
        ],
    ),
    "Commands": (
        "docs/explanation/commands.md",
        [
            "## Commands",
            "villagelab run --scenario NAME|PATH [--scenario …] --policy PATH --seeds 0-4",
            "Exit codes everywhere: 0 ok;",
            "Ray's local workers run at niceness `VILLAGELAB_WORKER_NICENESS`",
        ],
    ),
    "A run, its score, one agent up close": (
        "docs/explanation/runs-and-traces.md",
        [
            "## A run, its score, one agent up close",
            "Traces land at `out/traces/<table>/<scenario>/<seed>.parquet`",
            "`out/manifest.json` records the hashes, the policy,",
        ],
    ),
    "The scorecard": (
        "docs/explanation/scorecard.md",
        [
            "## The scorecard",
            "Metrics are computed from observable behaviour (utterances, actions, probe",
            "A scenario declares which apply to it.",
        ],
    ),
    "A search": (
        "docs/explanation/promotion.md",
        [
            "## A search",
            "`villagelab search --study NAME --trials N` drives Optuna by ask/tell",
            "- **feasibility comes first**:",
            "**Champion and best trial are different things.**",
        ],
    ),
    "Looking at a study: MLflow and optuna-dashboard": (
        "docs/explanation/mlflow.md",
        [
            "# Looking at a study: MLflow and optuna-dashboard",
            "`villagelab ui` serves the MLflow UI on the runs folder",
            "In the store, one experiment per study",
        ],
    ),
    "Sweeps": (
        "docs/explanation/commands.md",
        ["## Sweeps", "`villagelab sweep --param replan.trigger_confidence --values"],
    ),
    "The gate": (
        "docs/tutorials/gate-in-ci.md",
        ["`villagelab gate --policy policies/careful.yaml` runs the suite on the gate seeds"],
    ),
    "The morning report": (
        "docs/explanation/commands.md",
        ["## The morning report", "`villagelab report --study NAME` writes `studies/NAME/"],
    ),
    "The policy surface": (
        "docs/explanation/policy-surface.md",
        [
            "# The policy surface",
            "`villagelab policy show policies/careful.yaml` lists every whitelisted parameter",
        ],
    ),
    "Agents": (
        "docs/explanation/agents-and-worlds.md",
        [
            "## Agents",
            "The harness talks to agents only through `harness/engine/contract.py`",
            "A world's actions come from the physics plug-ins its scenario names",
        ],
    ),
    "Writing a scenario": (
        "docs/tutorials/write-a-scenario.md",
        [
            "A scenario declares the world (places, roads, facts, stock), agents",
            "Check it with `villagelab scenario validate tiny.yaml`;",
        ],
    ),
    "Robustness tests": (
        "docs/explanation/robustness.md",
        [
            "# Robustness tests",
            "`tests/robustness/` generates cases with hypothesis and checks each one",
            ".venv/bin/python -m tests.robustness.census --policies 500 --scenarios 500",
        ],
    ),
}

# the parts of "A search" (and the paragraph under the two commands) that have pages of their
# own
PARTS = {
    "the runs folder and the search config": (
        "docs/explanation/stores.md",
        ["Under `--runs-dir` (default `runs/`): `optuna.journal`, `mlflow.db`"],
    ),
    "the stores survive a kill": (
        "docs/explanation/stores.md",
        [
            "- The stores survive a kill.",
            "- One driver per journal file:",
            "- Several drivers: `--storage postgresql://…`",
        ],
    ),
    "processes": (
        "docs/explanation/processes.md",
        ["Processes: villagelab stops what it starts.", "Several drivers may start the same"],
    ),
    "security": (
        "docs/security.md",
        ["A local Ray cluster listens on 127.0.0.1 only, with Ray's token authentication;"],
    ),
    "diagnosis-driven proposals": (
        "docs/explanation/promotion.md",
        ["**Diagnosis-driven proposals** (global mode).", "**Is the search any good?**"],
    ),
    "what the quickstart measured": (
        "docs/tutorials/first-overnight-search.md",
        ["Measured with this command in a fresh clone (96 s on two quiet cores,"],
    ),
    "what the tests need": (
        "docs/explanation/robustness.md",
        ["the test of two drivers on PostgreSQL needs Debian's `postgresql` package"],
    ),
}


def flat(text: str) -> str:
    """Text with its line breaks and runs of spaces as single spaces (a moved paragraph may be
    wrapped anew)."""
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("title", [*SECTIONS, *PARTS])
def test_each_old_readme_section_has_a_home_that_holds_it(title):
    page, keys = {**SECTIONS, **PARTS}[title]
    path = ROOT / page
    assert path.exists(), (title, page)
    text = flat(path.read_text())
    for key in keys:
        assert flat(key) in text, (title, page, key)


def test_the_readme_starts_with_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    assert readme.startswith(
        "# villagelab\n\n```bash\n"
        "python3.11 -m venv .venv && .venv/bin/pip install -q -e . && "
        ".venv/bin/villagelab search --study quickstart --trials 10\n"
        "python3.11 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "
        ".venv/bin/python -m pytest\n```\n"
    )


def test_the_readme_links_to_every_home_and_stays_short():
    readme = (ROOT / "README.md").read_text()
    for page, _ in [*SECTIONS.values(), *PARTS.values()]:
        if page != "README.md":
            assert f"]({page})" in readme, page
    assert len(readme.splitlines()) <= 150


def test_the_list_names_every_section_the_readme_had():
    # the headings of the README as of main before issue 32, in order
    assert list(SECTIONS) == [
        "What it is",
        "Layout",
        "Commands",
        "A run, its score, one agent up close",
        "The scorecard",
        "A search",
        "Looking at a study: MLflow and optuna-dashboard",
        "Sweeps",
        "The gate",
        "The morning report",
        "The policy surface",
        "Agents",
        "Writing a scenario",
        "Robustness tests",
    ]
