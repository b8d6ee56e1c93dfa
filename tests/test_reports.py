"""The reports a user reads: a run's names what was run, the gate's puts regressions first by
severity in a colour that means "worse" either way, the morning report compares champion,
careful and baseline and explains every decision — and each renders in headless Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .chromium import drawn, needs_chromium, screenshot
from .conftest import ROOT, villagelab

pytestmark = pytest.mark.slow
CAREFUL = ROOT / "policies" / "careful.yaml"


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("reports")
    run = villagelab(
        "run",
        "--scenario",
        "public_fact",
        "--scenario",
        "secret",
        "--policy",
        str(CAREFUL),
        "--seeds",
        "0-1",
        "--out",
        str(root / "run"),
        "--json",
        str(root / "run" / "card.json"),
        "--serial",
    )
    assert run.returncode == 0, run.stderr
    planted = root / "planted.yaml"
    planted.write_text(
        CAREFUL.read_text().replace("mark_second_hand: true", "mark_second_hand: false")
    )
    gate = villagelab(
        "gate",
        "--policy",
        str(planted),
        "--serial",
        "--no-mlflow",
        "--json",
        str(root / "gate" / "gate.json"),
    )
    assert gate.returncode == 1, gate.stderr  # against the committed baseline
    config = root / "search.yaml"
    # careful second: a trial as good as the best is never pruned, so at least two of the
    # three complete (the importances need two; their few-trials warning is asserted below)
    config.write_text(
        f"scenarios: [public_fact, secret]\nseeds: 0-2\nfirst: [{planted}, {CAREFUL}]\n"
    )
    search = villagelab(
        "search",
        "--study",
        "night",
        "--trials",
        "3",
        "--config",
        str(config),
        "--runs-dir",
        str(root / "runs"),
        "--serial",
    )
    assert search.returncode == 0, search.stderr
    morning = villagelab("report", "--study", "night", "--runs-dir", str(root / "runs"))
    assert morning.returncode == 0, morning.stderr
    return {
        "run": root / "run" / "report.html",
        "gate": root / "gate" / "report.html",
        "morning": root / "runs" / "studies" / "night" / "morning.html",
    }


def test_a_run_report_names_the_policy_file_scenarios_seeds_and_date(reports):
    md = reports["run"].with_suffix(".md").read_text()
    assert f"| policy file | {CAREFUL} |" in md
    assert "| scenarios | public_fact, secret |" in md and "| seeds | 0, 1 |" in md
    assert re.search(r"\| date \| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \|", md)


def test_the_gate_report_puts_regressions_first_by_severity_coloured_as_worse(reports):
    md = reports["gate"].with_suffix(".md").read_text()
    table = md.split("## Comparison with the reference", 1)[1].split("\n\n## ", 1)[0]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ")][1:]
    verdicts = [r[-1].rstrip(" |") for r in rows]
    regressed = [i for i, v in enumerate(verdicts) if v == "REGRESSED"]
    assert regressed and regressed == list(range(len(regressed)))  # first, all together
    from scorecards.metrics import METRICS

    def severity(row: list[str]) -> float:  # worse-side change beyond tolerance, by range
        metric, change, tolerance = row[1], float(row[3]), float(row[5])
        lo, hi = METRICS[metric].range
        worse = -change if METRICS[metric].direction == "max" else change
        return (worse - tolerance) / (hi - lo if hi != float("inf") else 1.0)

    severities = [severity(rows[i]) for i in regressed]
    assert severities == sorted(severities, reverse=True)
    page = reports["gate"].read_text()
    # a fall in a ↑ metric and a rise in a ↓ metric are both marked worse
    assert re.search(
        r'<tr class="regressed"><td>replan_bridge_rumor</td><td>stale_action_'
        r'rate</td><td>↓</td><td class="num">\+',
        page,
    )
    assert re.search(
        r'<tr class="regressed"><td>replan_bridge_rumor</td><td>action_'
        r'consistency</td><td>↑</td><td class="num">-',
        page,
    )
    assert "tr.regressed td { background:" in page


def test_the_morning_report_compares_and_explains_every_decision(reports):
    md = reports["morning"].with_suffix(".md").read_text()
    assert "## Champion, careful.yaml and baseline.yaml, metric by metric" in md
    assert re.search(
        r"\| provenance \| ↑ \| [\d.]+ \[[\d.]+, [\d.]+\] \| [\d.]+ \[[\d.]+, [\d.]+\] \| "
        r"[\d.]+ \[[\d.]+, [\d.]+\] \|",
        md,
    )  # champion, careful, baseline with CIs
    trials = md.split("## Every trial", 1)[1].split("\n## ", 1)[0]
    assert len([line for line in trials.splitlines() if re.match(r"\| \d+ \|", line)]) == 3
    assert "## The best rejected challenger" in md
    assert "## Blocked by tolerance" in md
    assert "**Warning:** only" in md and "fewer than 30" in md  # importances, 3 trials
    assert (reports["morning"].parent / "morning.md").exists()


@needs_chromium
@pytest.mark.parametrize("which", ["run", "gate", "morning"])
def test_each_report_renders_in_headless_chromium(reports, which, tmp_path):
    shot = tmp_path / f"{which}.png"
    console = screenshot(reports[which].as_uri(), shot, size=(1280, 2000))
    assert drawn(shot)
    assert console == []  # the reports carry no script: any console message is an error
