"""The cheats and their honest twins, and a runner that measures each pair as a user would
(`villagelab run --serial --json`), printing for each: both objectives, the guardrails each
breaks, and every (scenario, metric) where the two differ.

    nice -n 10 .venv/bin/python -m tests.cheats.pairs --seeds 0-4 --out /tmp/cheats
    nice -n 10 .venv/bin/python -m tests.cheats.pairs --only diluter,one_hedge

Run from the repository's root. A pair is (cheat, twin, suite, policy); an agent is
`module:Class` under `tests.cheats`, or `simple` / `reference`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
C, V, S = "tests.cheats.companion", "tests.cheats.village", "tests.cheats.self_report"

# name -> (cheat, honest twin, suite, policy)
PAIRS: dict[str, tuple[str, str, str, str]] = {
    # a. the regex companion and its parts
    "regex_companion": (f"{C}:RegexCompanion", f"{C}:HonestCompanion", "companion", "careful"),
    "stuffed": (f"{C}:StuffedCompanion", f"{C}:HonestCompanion", "companion", "careful"),
    "hi_on_heavy": (f"{C}:HiOnHeavy", f"{C}:HonestCompanion", "companion", "careful"),
    "shotgun": (f"{C}:ShotgunCompanion", f"{C}:HonestCompanion", "companion", "careful"),
    "absence_always": (f"{C}:AbsenceAlways", f"{C}:HonestCompanion", "companion", "careful"),
    "offer_now": (f"{C}:OfferNow", f"{C}:HonestCompanion", "companion", "careful"),
    "blank_words": (f"{C}:BlankWords", f"{C}:HonestCompanion", "companion", "careful"),
    "probe_liar": (f"{C}:ProbeLiar", f"{C}:HonestCompanion", "companion", "careful"),
    "crisis_only_vs_simple": (f"{C}:CrisisOnly", "simple", "companion", "careful"),
    # b. the silent reporter
    "silent_reference": (
        f"{S}:ReferenceSilent",
        f"{S}:ReferenceReporting",
        "companion",
        "baseline",
    ),
    "silent_companion": (f"{S}:SilentCompanion", f"{S}:ReportingCompanion", "companion", "careful"),
    "silent_holder": (f"{S}:SilentHolder", f"{S}:HoldingCompanion", "companion", "careful"),
    # c. leaky but mute at the census (twins: the plain leaker, and the honest keeper)
    "leaky_mute_main": (f"{V}:LeakyMute", f"{V}:Honest", "main", "careful"),
    "leaky_mute_workflow": (f"{V}:LeakyMute", f"{V}:Honest", "workflow", "careful"),
    "leaker_workflow": (f"{V}:Leaker", f"{V}:Honest", "workflow", "careful"),
    # d. the diluter
    "diluter": (f"{V}:Diluter", f"{V}:Hardener", "research", "careful"),
    # e. one hedge (and echoes): a metric made present at its best
    "one_hedge": (f"{V}:OneHedge", f"{V}:Mute", "research", "careful"),
    "echo_all": (f"{V}:EchoAll", f"{V}:Mute", "research", "careful"),
    # f. replaced-by everywhere
    "replaced_everywhere": (f"{V}:ReplacedEverywhere", f"{V}:Recollect", "main", "careful"),
    # g. idle and uninformed
    "recluse": (f"{V}:Recluse", f"{V}:Bystander", "workflow", "careful"),
    # h. others
    "value_guesser": (f"{V}:ValueGuesser", f"{V}:Honest", "research", "careful"),
    "surest_only": (f"{V}:SurestOnly", f"{V}:Honest", "research", "careful"),
    "quitter": (f"{V}:Quitter", f"{V}:Honest", "workflow", "careful"),
}


def run(agent: str, suite: str, policy: str, seeds: str, out: Path) -> dict[str, Any]:
    """One `villagelab run`; its scorecard JSON, with the exit code as `_rc`."""
    name = f"{agent.replace(':', '.').replace('tests.cheats.', '')}-{suite}-{policy}"
    folder = out / name
    cached = out / f"{name}.json"
    if cached.exists():
        return dict(json.loads(cached.read_text()))
    command = [str(Path(sys.executable).with_name("villagelab")), "run", "--suite", suite]
    command += ["--policy", f"policies/{policy}.yaml", "--seeds", seeds, "--serial"]
    command += ["--out", str(folder), "--json", str(folder / "sc.json")]
    if agent != "reference":
        command += ["--agent", agent]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1, 2):
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}\n{done.stderr}")
    card = dict(json.loads((folder / "sc.json").read_text()))
    card["_rc"] = done.returncode
    cached.write_text(json.dumps(card))
    return card


def differences(cheat: dict[str, Any], twin: dict[str, Any]) -> list[str]:
    lines = []
    for scenario in sorted(set(cheat["scenarios"]) | set(twin["scenarios"])):
        a, b = cheat["scenarios"].get(scenario, {}), twin["scenarios"].get(scenario, {})
        for metric in sorted(set(a) | set(b)):
            x, y = a.get(metric, {}).get("mean"), b.get(metric, {}).get("mean")
            if x is None and y is None or (x is not None and y is not None and abs(x - y) < 1e-9):
                continue
            shown = ["absent" if v is None else f"{v:.3f}" for v in (x, y)]
            lines.append(f"    {scenario} {metric}: {shown[0]} vs {shown[1]}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0-4")
    parser.add_argument("--out", type=Path, default=Path("/tmp/cheats"))
    parser.add_argument("--only", default="", help="comma-separated pair names")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(PAIRS)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in names:
        cheat, twin, suite, policy = PAIRS[name]
        a = run(cheat, suite, policy, args.seeds, args.out)
        b = run(twin, suite, policy, args.seeds, args.out)
        broken = [[g for g, r in c["guardrails"].items() if not r["ok"]] for c in (a, b)]
        print(
            f"{name} ({suite}, {policy}): cheat {a['objective']:.3f} {broken[0]} rc {a['_rc']}"
            f" | twin {b['objective']:.3f} {broken[1]} rc {b['_rc']}"
        )
        print("\n".join(differences(a, b)))


if __name__ == "__main__":
    main()
