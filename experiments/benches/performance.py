"""`villagelab bench`: the figures of the performance table, measured in one run (never
asserted in tests: they are benchmarks, and the machine may be busy — the load averages are
printed beside them).

CPU time is read with `time.process_time` (this process) or `resource` (a child), so another
program on the machine slows the wall clock but not the figure; wall time is shown beside it.
"""

from __future__ import annotations

import contextlib
import cProfile
import io
import json
import os
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.evaluation.dispatch import Execution
from experiments.evaluation.evaluate import Instrument, evaluate
from harness import Episode
from harness.agents import AGENT_KINDS
from policies import Policy, load_policy
from scenarios import builtin_names, load_scenario, village

REFERENCE = AGENT_KINDS["reference"]
ROOT = Path(__file__).resolve().parents[2]


def _policy() -> Policy:
    return load_policy(ROOT / "policies" / "careful.yaml")


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes), as /proc/loadavg gives them."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


@dataclass(frozen=True)
class VillageCost:
    agents: int
    hours: int
    wall: float  # seconds
    cpu: float  # seconds of this process (or the child that ran it)
    peak_mb: float | None = None  # the child's peak resident memory, when run apart
    chats: float = 0.0  # chats per agent over the episode: how much each agent had to do

    @property
    def ticks(self) -> int:
        return self.hours * 60 + 1

    @property
    def us_per_agent_tick(self) -> float:
        return self.cpu / (self.agents * self.ticks) * 1e6


def village_cost(
    agents: int, hours: int = 24, *, agent: str = REFERENCE, lazy: bool = True
) -> VillageCost:
    """One episode of a generated village on seed 0, in this process."""
    episode = Episode(village(agents, 0, hours=hours), _policy(), 0, agent, lazy=lazy)
    wall, cpu = time.perf_counter(), time.process_time()
    episode.run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    events = episode.rec.tables()["events"].column("kind").to_pylist()
    return VillageCost(agents, hours, wall, cpu, chats=2 * events.count("chat") / agents)


def village_apart(agents: int, hours: int = 24, *, agent: str = REFERENCE) -> VillageCost:
    """The same in a fresh process, so its peak memory is its own."""
    code = "import sys; from experiments.benches.performance import _child; _child(*sys.argv[1:])"
    done = subprocess.run(
        [sys.executable, "-c", code, str(agents), str(hours), agent],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return VillageCost(**json.loads(done.stdout.strip().splitlines()[-1]))


def _child(agents: str, hours: str, agent: str) -> None:
    cost = village_cost(int(agents), int(hours), agent=agent)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({**cost.__dict__, "peak_mb": round(peak, 1)}))


def boundary_cost(agents: int, hours: int = 24, *, agent: str = REFERENCE) -> dict[str, float]:
    """Wall µs per agent-tick of one village day with the agents in the episode's process and
    with each behind the process boundary (`VILLAGELAB_ISOLATION=process`), the least of three
    runs each, interleaved. Wall time: behind the boundary the work is in other processes."""
    from harness.engine import boundary

    best: dict[str, float] = {}
    before = os.environ.get(boundary.VARIABLE)
    try:
        for _ in range(3):
            for mode in ("none", "process"):
                os.environ[boundary.VARIABLE] = mode
                scenario = village(agents, 0, hours=hours)
                with Episode(scenario, _policy(), 0, agent) as episode:
                    began = time.perf_counter()
                    episode.run()
                    wall = time.perf_counter() - began
                us = wall / (agents * (hours * 60 + 1)) * 1e6
                best[mode] = min(best.get(mode, us), us)
    finally:
        if before is None:
            os.environ.pop(boundary.VARIABLE, None)
        else:
            os.environ[boundary.VARIABLE] = before
    return {"in_process": best["none"], "isolated": best["process"]}


def village_profile(agents: int, hours: int = 24, agent: str = REFERENCE, rows: int = 15) -> str:
    """Where a village's time goes (cProfile, by own time)."""
    episode = Episode(village(agents, 0, hours=hours), _policy(), 0, agent)
    profiler = cProfile.Profile()
    profiler.enable()
    episode.run()
    profiler.disable()
    buffer = io.StringIO()
    pstats.Stats(profiler, stream=buffer).sort_stats("tottime").print_stats(rows)
    return buffer.getvalue()


@dataclass(frozen=True)
class ScoringCost:
    cpu_ms: float  # median over repeats, CPU time of this process
    wall_ms: float  # median over repeats
    rows: int  # trace rows of the episode


def scoring_ms(agent: str = REFERENCE, repeats: int = 7) -> dict[str, ScoringCost]:
    """Milliseconds to score one ordinary episode (each built-in scenario, careful, seed 0)
    as a worker does where the episode ran: its Arrow tables, every declared metric; the
    median of `repeats` after one warm-up."""
    from scorecards import load_definition, measure

    definition, policy, out = load_definition(), _policy(), {}
    for name in builtin_names():
        scenario = load_scenario(name)
        tables = Episode(scenario, policy, 0, agent).run()
        applicable = {name: tuple(scenario.metrics)}
        measure(tables, definition, applicable)  # warm
        cpu, wall = [], []
        for _ in range(repeats):
            began, began_wall = time.process_time(), time.perf_counter()
            measure(tables, definition, applicable)
            cpu.append(time.process_time() - began)
            wall.append(time.perf_counter() - began_wall)
        rows = sum(t.num_rows for t in tables.values())
        out[name] = ScoringCost(_median(cpu) * 1000, _median(wall) * 1000, rows)
    return out


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def trial_overhead(trials: int = 5, agent: str = "reference") -> dict[str, float]:
    """A serial search of `trials` trials (public_fact and rumor, seeds 0-1) in a temporary
    runs folder; per trial, the mean of each `*_seconds` part it logged to MLflow (a part
    only some trials have, promotion, over those), and `but_simulation`: the mean, over each
    trial but the last, of the time from its run's start to the next one's (so the trial's
    closing writes, after its own clock stopped, and the next ask are in it) less its
    simulation and its promotion (a promotion's confirmation and registry are a cost per
    promotion, shown apart); `on_clock`: the same from the seconds the trial logged."""
    with tempfile.TemporaryDirectory(prefix="villagelab-bench-") as folder:
        config = Path(folder) / "search.yaml"
        config.write_text("scenarios: [public_fact, rumor]\nseeds: 0-1\n")
        runs = Path(folder) / "runs"
        code = "from experiments.cli.main import main; main()"
        args = ["search", "--study", "bench", "--trials", str(trials), "--serial"]
        args += ["--config", str(config), "--runs-dir", str(runs), "--agent", agent]
        subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, check=True, cwd=folder
        )
        from mlflow.tracking import MlflowClient

        client = MlflowClient(tracking_uri=f"sqlite:///{runs / 'mlflow.db'}")
        experiment = client.get_experiment_by_name("bench")
        assert experiment is not None  # the search just made it
        searched = client.search_runs(
            [experiment.experiment_id], "tags.`villagelab.kind` = 'trial'"
        )
        found = sorted(searched, key=lambda run: run.info.start_time)
        parts: dict[str, list[float]] = {}
        cycle: list[float] = []
        on_clock: list[float] = []
        for run, following in zip(found, [*found[1:], None]):
            seconds = {
                key.removesuffix("_seconds"): value
                for key, value in run.data.metrics.items()
                if key.endswith("_seconds")
            }
            for key, value in seconds.items():
                parts.setdefault(key, []).append(value)
            simulated = seconds.get("simulation", 0.0) + seconds.get("promotion", 0.0)
            on_clock.append(seconds.get("trial", 0.0) - simulated)
            if following is not None:  # MLflow's start times are whole milliseconds
                cycle.append((following.info.start_time - run.info.start_time) / 1000 - simulated)
    out = {k: sum(v) / len(v) for k, v in sorted(parts.items())}
    out["promoted"] = len(parts.get("promotion", []))
    out["on_clock"] = sum(on_clock) / len(on_clock) if on_clock else 0.0
    out["but_simulation"] = sum(cycle) / len(cycle) if cycle else out["on_clock"]
    return out


def ray_speedup(
    agents: int = 200, seeds: int = 4, hours: int = 24, workers: int = 2, rounds: int = 3
) -> Any:
    """A `run` of a generated village on `seeds` seeds, `rounds` times serially (before any
    cluster runs), then as often on a fresh local Ray cluster of `workers` workers: the
    least wall seconds of each (one run of about a second moved ~10 % with the machine), and
    Ray's start-up apart — the cluster's start and each worker's first episode (a small
    scenario: the worker imports the stack then, once, whatever it runs next)."""
    from harness import ensure_ray

    instrument = Instrument.load(["village"], agents=agents, hours=hours)
    policy, chosen = _policy(), tuple(range(seeds))
    seconds: dict[bool, list[float]] = {True: [], False: []}  # serial or not → each run's
    with tempfile.TemporaryDirectory(prefix="villagelab-bench-") as folder:

        def timed(execution: Execution) -> None:
            began = time.perf_counter()
            out = Path(folder) / f"{execution.serial}-{len(seconds[execution.serial])}"
            evaluate(policy, instrument, chosen, execution, out=out)
            seconds[execution.serial].append(time.perf_counter() - began)

        for _ in range(rounds):
            timed(Execution(serial=True))
        began = time.perf_counter()
        ensure_ray(workers)
        warm = Instrument.load(["public_fact"])
        evaluate(
            policy, warm, tuple(range(workers)), Execution(workers=workers), out=Path(folder) / "w"
        )
        startup = time.perf_counter() - began
        for _ in range(rounds):
            timed(Execution(workers=workers))
    import ray

    ray.shutdown()
    return {"serial": min(seconds[True]), "ray": min(seconds[False]), "ray_startup": startup}


def tune_overhead(small: int = 4, large: int = 44) -> float | None:
    """The yardstick for our overhead per trial: Ray Tune with OptunaSearch and reused actors,
    one trial at a time, on an objective that does nothing — the marginal seconds per trial
    (fitting `large` trials against `small`: start-up apart, as ours). None without
    `ray[tune]` (the bench extra)."""
    try:
        from ray import tune
        from ray.tune.search.optuna import OptunaSearch
    except ImportError:
        return None
    import ray

    from harness import ensure_ray

    ensure_ray(2)

    def objective(config: dict[str, float]) -> dict[str, float]:
        return {"score": config["x"]}

    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)  # a study per fit, each announced
    seconds = {}
    for n in (small, small, large):  # the first warms the workers up; its time is replaced
        with (
            tempfile.TemporaryDirectory(prefix="villagelab-bench-") as folder,
            contextlib.redirect_stdout(io.StringIO()),  # Tune's progress tables
            contextlib.redirect_stderr(io.StringIO()),
        ):
            tuner = tune.Tuner(
                objective,
                param_space={"x": tune.uniform(0, 1)},
                tune_config=tune.TuneConfig(
                    search_alg=OptunaSearch(metric="score", mode="max", seed=0),
                    num_samples=n,
                    reuse_actors=True,
                    max_concurrent_trials=1,
                ),
                run_config=tune.RunConfig(storage_path=folder, verbose=0),
            )
            began = time.perf_counter()
            tuner.fit()
            seconds[n] = time.perf_counter() - began
    ray.shutdown()
    return (seconds[large] - seconds[small]) / (large - small)
