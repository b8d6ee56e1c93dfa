"""`villagelab bench --search`: studies from baseline.yaml for a fixed time each, when each
champion first reached careful.yaml, and the final champion against careful on fresh seeds."""

from __future__ import annotations

import re

import pytest

from .conftest import villagelab

pytestmark = pytest.mark.slow


def test_the_search_bench_reports_each_study_against_careful(tmp_path):
    config = tmp_path / "search.yaml"
    config.write_text("scenarios: [public_fact]\nseeds: 0-1\ndiagnose_after: 2\n")
    args = ["bench", "--search", "--minutes", "0.1", "--studies", "2", "--serial"]
    args += ["--config", str(config), "--runs-dir", str(tmp_path / "bench")]
    out = villagelab(*args)
    assert out.returncode == 0, out.stderr
    lines = [x for x in out.stdout.splitlines() if x.startswith("search.bench-search-")]
    assert len(lines) == 2, out.stdout
    for line in lines:
        assert re.search(
            r": \d+ trials; reached careful at (never|minute [\d.]+, trial \d+);", line
        )
        assert re.search(
            r"− careful [+-][\d.]+ \[[+-][\d.]+, [+-][\d.]+\]; public_fact reach", line
        )
        pruned = re.search(r"; (\d+) pruned, of (\d+) run to the end (\d+) would have", line)
        assert pruned, line
        assert int(pruned[2]) == min(int(pruned[1]), 20) and int(pruned[3]) <= int(pruned[2])
    assert re.search(r"careful\.fresh_objective: [\d.]+", out.stdout)
    again = villagelab(*args)  # a benchmark never resumes: refused, naming the folder
    assert again.returncode == 2 and "bench-search-0 exists" in again.stderr
    assert "Traceback" not in again.stderr
