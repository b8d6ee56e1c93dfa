"""Reports: markdown (deterministic) and self-contained HTML; diffusion curves; MLflow."""

from __future__ import annotations

import base64
import re
import sys
import types
from pathlib import Path

import pandas as pd
import pytest
from scorecard_traces import answer, exposure, fact, frame

from scorecards import compare, load_definition, score
from scorecards.bench import synthetic_traces
from scorecards.report import diffusion_curves, log_reports_to_mlflow, write_reports

HASHES = {"harness": "h" * 64, "instrument": "i" * 64, "policy": "p" * 64}


def _traces(rng_seed: int = 0) -> dict[str, pd.DataFrame]:
    return synthetic_traces(3_000, scenarios=2, seeds=3, rng_seed=rng_seed)


def test_diffusion_counts_knowers_hedged_and_outsiders_by_tick() -> None:
    secret = fact("secret", "yes", origin="ana", audience=["ana", "bo", "cy"])
    exposures = [
        exposure("ana", "seen", tick=1, proposition="secret"),  # the origin: never counted
        {**exposure("bo", "told", "ana", tick=5, proposition="secret"), "modality": "rumor"},
        exposure("bo", "told", "ana", tick=8, proposition="secret"),  # bo now sure
        {**exposure("di", "told", "bo", tick=6, proposition="secret"), "modality": "likely"},
        exposure("ed", "told", "bo", tick=7, proposition="secret", value="no"),  # wrong value
    ]
    census = [answer("bo", "yes", tick=10, proposition="secret")]
    traces = {
        "truth": frame("truth", [secret]),
        "exposures": frame("exposures", exposures),
        "probes": frame("probes", census),
    }
    curve = diffusion_curves(traces)
    assert curve["tick"].tolist() == [0, 5, 6, 7, 8, 10]  # the origin's tick 1 is not shown
    assert curve["knowers"].tolist() == [0, 1, 2, 2, 2, 2]
    assert curve["hedged"].tolist() == [0, 1, 2, 2, 1, 1]
    assert curve["outsiders"].tolist() == [0, 0, 1, 2, 2, 2]  # di and ed, any value
    assert (curve["audience"].iloc[0], curve["private"].iloc[0]) == (2.0, True)


def test_diffusion_is_the_mean_over_seeds() -> None:
    def one(seed: int, tick: int) -> dict[str, pd.DataFrame]:
        return {
            "truth": frame("truth", [fact()], seed=seed),
            "exposures": frame("exposures", [exposure("bo", "seen", tick=tick)], seed=seed),
        }

    a, b = one(0, 4), one(1, 8)
    traces = {k: pd.concat([a[k], b[k]], ignore_index=True) for k in a}
    curve = diffusion_curves(traces)
    assert curve[["tick", "knowers"]].values.tolist() == [[0, 0.0], [4, 0.5], [8, 1.0]]
    assert curve["seeds"].iloc[0] == 2 and not curve["private"].iloc[0]


def test_reports_are_written_and_the_html_embeds_its_images(tmp_path: Path) -> None:
    traces = _traces()
    card = score(traces, load_definition(), hashes=HASHES)
    md_path, html_path = write_reports(card, traces, tmp_path, title="nightly")
    assert (md_path, html_path) == (tmp_path / "report.md", tmp_path / "report.html")
    md, page = md_path.read_text(), html_path.read_text()
    assert md.startswith("# nightly\n")
    for section in (
        "## Objective",
        "## Guardrails",
        "## Metrics",
        "## Per scenario",
        "## Diffusion of tracked propositions",
        "### scenario_0",
        "**secret**",
    ):
        assert section in md
    assert "| reach | ↑ |" in md and "Figure 1:" in md
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 1 + 2  # the metrics, one diffusion figure per scenario
    assert all(base64.b64decode(i).startswith(b"\x89PNG\r\n\x1a\n") for i in images)
    assert not re.search(r'(src|href)="(?!data:)', page)  # nothing external
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html", "report.md"]


def test_the_markdown_is_byte_identical_for_identical_inputs(tmp_path: Path) -> None:
    traces = _traces()
    card = score(traces, load_definition(), hashes=HASHES)
    first, _ = write_reports(card, traces, tmp_path / "a")
    shuffled = {n: t.sample(frac=1.0, random_state=3) for n, t in traces.items()}
    again = score(shuffled, load_definition(), hashes=HASHES)
    second, _ = write_reports(again, shuffled, tmp_path / "b")
    assert first.read_bytes() == second.read_bytes()
    assert not re.search(r"20\d\d-\d\d-\d\d", first.read_text())  # no date or timestamp


def test_a_comparison_adds_the_paired_differences(tmp_path: Path) -> None:
    definition = load_definition()
    reference = score(_traces(0), definition, hashes=HASHES)
    candidate_traces = _traces(1)
    candidate = score(candidate_traces, definition, hashes=HASHES)
    comparison = compare(candidate, reference, definition)
    md_path, html_path = write_reports(candidate, candidate_traces, tmp_path, comparison=comparison)
    md = md_path.read_text()
    assert "## Comparison with the reference" in md and "Δ objective vs reference" in md
    assert "| scenario_0 | reach | " in md
    assert html_path.read_text().count("data:image/png;base64,") == 1 + 1 + 2


def test_a_card_without_tracked_propositions_still_reports(tmp_path: Path) -> None:
    traces = {"actions": frame("actions", [{"agent": "ana", "action": "paint"}], scenario="room")}
    card = score(traces, load_definition(), hashes=HASHES)
    md_path, _ = write_reports(card, traces, tmp_path)
    assert "No tracked proposition in these traces." in md_path.read_text()


class _FakeMlflow(types.ModuleType):
    def __init__(self, active: bool) -> None:
        super().__init__("mlflow")
        self.active, self.logged = active, []

    def active_run(self) -> object | None:
        return object() if self.active else None

    def log_artifact(self, path: str, artifact_path: str | None = None) -> None:
        self.logged.append((path, artifact_path))


@pytest.mark.parametrize("active", [True, False])
def test_reports_go_to_mlflow_only_inside_a_run(
    monkeypatch: pytest.MonkeyPatch, active: bool
) -> None:
    fake = _FakeMlflow(active)
    monkeypatch.setitem(sys.modules, "mlflow", fake)
    paths = [Path("/x/report.md"), Path("/x/report.html")]
    assert log_reports_to_mlflow(paths) is active
    expected = [("/x/report.md", "reports"), ("/x/report.html", "reports")] if active else []
    assert fake.logged == expected


def test_a_diffusion_curve_is_shown_beside_the_published_reach_its_scenario_names(
    tmp_path: Path,
) -> None:
    traces = _traces()
    card = score(traces, load_definition(), hashes=HASHES)
    curves = diffusion_curves(traces)
    mine = curves[(curves["scenario"] == "scenario_0") & (curves["proposition"] == "secret")]
    share = mine["knowers"].iloc[-1] / mine["audience"].iloc[0]
    published = {"scenario_0": {"secret": (0.52, "Park et al. 2023")}}
    md_path, html_path = write_reports(card, traces, tmp_path, references=published)
    md = md_path.read_text()
    assert f"Reached by the last tick: {share:.0%} of the audience" in md
    assert "published: 52% (Park et al. 2023)." in md
    assert md.count("published:") == 1  # only where a scenario names a reach
    plain, _ = write_reports(card, traces, tmp_path / "plain")
    assert "published:" not in plain.read_text()
    assert html_path.read_text().count("data:image/png;base64,") == len(
        re.findall(r"\*Figure \d+:", md)
    )
