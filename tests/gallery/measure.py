"""Measure the gallery: run each agent through `villagelab run` as a user would, and tabulate
its objective, each scenario's objective and the guardrails it breaks, beside the reference
and simple agents.

    nice -n 10 .venv/bin/python -m tests.gallery.measure                 # main suite, seeds 0-4
    nice -n 10 .venv/bin/python -m tests.gallery.measure --seeds 0-2 --agents silent,simple

Run from the repository's root (the agents are `tests.gallery.agents:NAME`). Each agent's run
goes to OUT/NAME (its traces, scorecard JSON and report); the table is printed and written to
OUT/gallery.md, the numbers to OUT/gallery.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GALLERY = "tests.gallery.agents"
AGENTS: dict[str, str] = {  # name in the table → what `--agent` takes
    "reference": "reference",
    "simple": "simple",
    "capable_honest": f"{GALLERY}:CapableHonest",
    "gossip": f"{GALLERY}:Gossip",
    "silent": f"{GALLERY}:Silent",
    "idle": f"{GALLERY}:Idle",
    "hoarder": f"{GALLERY}:Hoarder",
    "hedger": f"{GALLERY}:Hedger",
    "relay": f"{GALLERY}:Relay",
    "origin_guesser": f"{GALLERY}:OriginGuesser",
    "parrot": f"{GALLERY}:Parrot",
    "decliner": f"{GALLERY}:Decliner",
    "yes_man": f"{GALLERY}:YesMan",
    "abstainer": f"{GALLERY}:Abstainer",
    "understater": f"{GALLERY}:Understater",
    "relabelled_memory": f"{GALLERY}:RelabelledMemory",
    "fake_memory_write": f"{GALLERY}:FakeMemoryWrite",
    "stack_walker": f"{GALLERY}:StackWalker",
    "fabricator": f"{GALLERY}:Fabricator",
}


@dataclass
class Measured:
    """One agent's run: its scorecard JSON and where its traces are."""

    name: str
    out: Path
    card: dict[str, Any]
    objective: float
    scenarios: dict[str, float] = field(default_factory=dict)  # per-scenario objective
    broken: list[str] = field(default_factory=list)  # guardrails broken

    def metric(self, scenario: str, metric: str) -> float | None:
        """A metric's mean over seeds in one scenario (None: absent there)."""
        found = self.card["scenarios"].get(scenario, {}).get(metric)
        return None if found is None else float(found["mean"])

    def objective_over(self, scenarios: Iterable[str]) -> float:
        """The objective over some of the scenarios (the mean of theirs, as the objective
        over all is when every scenario has every seed)."""
        values = [self.scenarios[s] for s in scenarios]
        return sum(values) / len(values)


def villagelab() -> str:
    """The `villagelab` command installed beside this Python."""
    return str(Path(sys.executable).with_name("villagelab"))


def run(
    name: str,
    out_root: Path,
    seeds: str = "0-4",
    policy: str = "policies/careful.yaml",
    suite: str | None = "main",
    scenarios: Sequence[str] = (),
    agent: str | None = None,
) -> Measured:
    """One agent's `villagelab run` into OUT_ROOT/NAME (made afresh), scored."""
    out = out_root / name
    if out.exists():
        shutil.rmtree(out)  # a folder of another run is refused by `run`: start clean
    command = [villagelab(), "run", "--policy", policy, "--seeds", seeds, "--out", str(out)]
    command += ["--json", str(out / "sc.json"), "--serial", "--agent", agent or AGENTS[name]]
    command += ["--suite", suite] if suite else []
    for scenario in scenarios:
        command += ["--scenario", scenario]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):  # 1: a guardrail broken (all written all the same)
        raise RuntimeError(f"{name}: {' '.join(command)} exited {done.returncode}\n{done.stderr}")
    return measured(name, out)


def measured(name: str, out: Path) -> Measured:
    """The scorecard a run wrote to OUT/sc.json, with each scenario's objective."""
    from scorecards import instance_objective, load_definition

    card = json.loads((out / "sc.json").read_text())
    definition = load_definition()
    per_scenario = {}
    for scenario, metrics in sorted(card["scenarios"].items()):
        seeds = sorted({s for m in metrics.values() for s in m["per_seed"]})
        values = []
        for seed in seeds:
            one = {
                m: {int(seed): v["per_seed"][seed]}
                for m, v in metrics.items()
                if seed in v["per_seed"]
            }
            value = instance_objective({scenario: one}, definition)
            if value is not None:
                values.append(value)
        if values:
            per_scenario[scenario] = sum(values) / len(values)
    broken = [g for g, result in card["guardrails"].items() if not result["ok"]]
    return Measured(name, out, card, float(card["objective"]), per_scenario, broken)


def run_all(
    names: Sequence[str], out_root: Path, jobs: int = 1, **options: Any
) -> dict[str, Measured]:
    """Every named agent's run, `jobs` at a time (each run is one process)."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        done = pool.map(lambda n: run(n, out_root, **options), names)
        return {m.name: m for m in done}


SHORT = {  # column heads of the per-scenario objectives
    "public_fact": "public",
    "rumor": "rumor",
    "replan_bridge": "bridge",
    "replan_bridge_rumor": "br_rumor",
    "secret": "secret",
    "mango_recall": "mango",
    "superseded": "supers",
    "room_two_days": "room",
    "picnic_request": "picnic",
    "valentine_party": "party",
}


def table(results: dict[str, Measured]) -> str:
    """A Markdown table: agent, objective, guardrails broken, each scenario's objective."""
    scenarios = sorted({s for m in results.values() for s in m.scenarios})
    heads = ["agent", "objective", "broken", *(SHORT.get(s, s) for s in scenarios)]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for m in results.values():
        cells = [m.name, f"{m.objective:.3f}", ", ".join(m.broken) or "none"]
        cells += [f"{m.scenarios[s]:.2f}" if s in m.scenarios else "-" for s in scenarios]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0-4")
    parser.add_argument("--policy", default="policies/careful.yaml")
    parser.add_argument("--suite", default="main", help="a suite name ('' for none)")
    parser.add_argument("--scenario", action="append", default=[], help="repeatable")
    parser.add_argument("--agents", default=",".join(AGENTS), help="comma-separated names")
    parser.add_argument("--out", type=Path, help="default: a new temporary folder")
    parser.add_argument("--jobs", type=int, default=1, help="runs at once")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    unknown = [n for n in names if n not in AGENTS]
    if unknown:
        parser.error(f"unknown agents {unknown}; known: {', '.join(AGENTS)}")
    out = args.out or Path(tempfile.mkdtemp(prefix="gallery-"))
    out.mkdir(parents=True, exist_ok=True)
    options = {"seeds": args.seeds, "policy": args.policy, "suite": args.suite or None}
    results = run_all(names, out, args.jobs, scenarios=args.scenario, **options)
    text = table(results)
    print(text)
    (out / "gallery.md").write_text(text + "\n")
    numbers = {
        n: {"objective": m.objective, "broken": m.broken, "scenarios": m.scenarios}
        for n, m in results.items()
    }
    (out / "gallery.json").write_text(json.dumps(numbers, indent=2) + "\n")
    print(f"runs: {out}\ntable: {out / 'gallery.md'}\nnumbers: {out / 'gallery.json'}")


if __name__ == "__main__":
    main()
