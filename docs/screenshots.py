"""Screenshots of a study in the MLflow UI, taken with headless Chromium.

    .venv/bin/python docs/screenshots.py [--runs-dir runs] [--out docs/screenshots]

Three pictures of the newest study in the runs folder: its runs view (the trials, best
first, as `villagelab ui` opens it), the page of the champion's trial (or of the best trial),
and the champion's model version with its promotion evidence. Without `--runs-dir`, a small
search is run first into a temporary folder (two scenarios, four trials, about a minute).

Needs Chromium (Debian: `apt-get install chromium`); it runs headless with no network and a
fresh profile, against an MLflow server this script starts on a free port and stops.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium() -> str:
    found = find_chromium()
    if found is None:
        sys.exit("screenshots: Chromium not found (Debian: apt-get install chromium)")
    return found


def shoot(url: str, path: Path, size: tuple[int, int] = (1800, 1000)) -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                chromium(),
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--window-size={size[0]},{size[1]}",
                "--virtual-time-budget=20000",
                f"--screenshot={path}",
                url,
            ],
            capture_output=True,
            timeout=300,
            check=True,
        )
    print(f"{path.stem}: {path}")


def demo(folder: Path) -> Path:
    """A small study to photograph: careful.yaml is tried first and promoted."""
    config = folder / "search.yaml"
    config.write_text(
        f"scenarios: [public_fact, secret]\nseeds: 0-2\n"
        f"first: [{ROOT / 'policies' / 'careful.yaml'}]\n"
    )
    exe = Path(sys.executable).with_name("villagelab")
    subprocess.run(
        [
            str(exe),
            "search",
            "--study",
            "demo",
            "--trials",
            "4",
            "--config",
            str(config),
            "--runs-dir",
            str(folder / "runs"),
            "--serial",
        ],
        check=True,
        capture_output=True,
    )
    return folder / "runs"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def take(out: Path, runs_dir: Path | None = None) -> list[Path]:
    """The three pictures of the newest study in `runs_dir` (default: a small search run
    first, into a temporary folder), written into `out`; the paths written."""
    from mlflow.tracking import MlflowClient

    from experiments.promotion.champion import MODEL, Registry
    from experiments.stores.runs_folder import RunsDir
    from experiments.tracking.study_view import run_path, runs_view_path
    from experiments.tracking.ui import Server, newest_study

    with tempfile.TemporaryDirectory() as tmp:
        runs = RunsDir(runs_dir or demo(Path(tmp)))
        uri = runs.tracking_uri
        study = newest_study(uri)
        if study is None:
            sys.exit(f"screenshots: no study in {runs.root}")
        experiment_id, _ = study
        client = MlflowClient(tracking_uri=uri)
        registry = Registry(uri)
        version = registry.current_version()
        trial_run = None
        if version is not None:
            source = client.get_model_version(MODEL, str(version)).run_id
            if client.get_run(source).data.tags.get("villagelab.kind") == "trial":
                trial_run = source
        if trial_run is None:  # the champion is the start policy: the best trial instead
            best = client.search_runs(
                [experiment_id],
                "tags.`villagelab.kind` = 'trial'",
                order_by=["metrics.optuna_value DESC"],
                max_results=1,
            )
            trial_run = best[0].info.run_id if best else None
        out.mkdir(parents=True, exist_ok=True)
        shots = [(runs_view_path(experiment_id), out / "runs-view.png", (1800, 1000))]
        if trial_run is not None:
            shots.append((run_path(experiment_id, trial_run), out / "trial.png", (1800, 1400)))
        if version is not None:
            page = f"#/models/{MODEL}/versions/{version}"
            shots.append((page, out / "model-version.png", (1800, 1200)))
        server = Server(uri, "127.0.0.1", free_port())
        server.start()
        try:
            for page, path, size in shots:
                shoot(f"{server.base}/{page}", path, size)
        finally:
            server.stop()
        return [path for _, path, _ in shots]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs-dir", type=Path, help="default: a small search run first")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    take(args.out, args.runs_dir)


if __name__ == "__main__":
    main()
