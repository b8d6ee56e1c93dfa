"""Search modes and the Optuna side: local sampling stays near the champion, pareto reports
its front, guardrails are constraints."""

from __future__ import annotations

import optuna

from experiments.search.study import SubStudy, local_name
from experiments.search.surface import sample
from policies import WHITELIST, load_policy

from .conftest import ROOT, villagelab

BASELINE = load_policy(ROOT / "policies" / "baseline.yaml")


def test_local_mode_stays_within_a_step_and_flips_at_most_k():
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(seed=3))
    for _ in range(40):
        trial = study.ask()
        policy = sample(trial, "local", BASELINE, 0.1, 1, [p.name for p in WHITELIST])
        flipped = 0
        for p in WHITELIST:
            if p.kind == "float":
                assert abs(policy[p.name] - BASELINE[p.name]) <= (p.high - p.low) * 0.1 + 1e-9
            elif p.kind == "int":
                step = max(1, int((p.high - p.low) * 0.1))
                assert abs(policy[p.name] - BASELINE[p.name]) <= step
            else:
                flipped += policy[p.name] != BASELINE[p.name]
        assert flipped <= 1
        study.tell(trial, 0.0)


def test_a_sub_study_is_told_from_its_name_and_from_other_studies():
    sub = SubStudy("night@lab", 3)  # a study's own name may hold an @
    assert local_name("night@lab", 3) == sub.name == "night@lab@champion-v3"
    assert SubStudy.of(sub.name) == sub and sub.label == "champion-v3"
    assert SubStudy.within(sub.name, "night@lab") and not SubStudy.within(sub.name, "night")
    for other in ("night@lab", "night@champion-vx", "@champion-v1", "night-champion-v2"):
        assert SubStudy.of(other) is None, other
    assert local_name("night", None) == "night@champion-v0"


def test_pareto_mode_reports_its_front_and_never_prunes(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("scenarios: [public_fact, secret]\nseeds: 0-1\n")
    runs = tmp_path / "runs"
    result = villagelab(
        "search",
        "--study",
        "front",
        "--mode",
        "pareto",
        "--trials",
        "3",
        "--config",
        str(cfg),
        "--runs-dir",
        str(runs),
        "--serial",
    )
    assert result.returncode == 0, result.stderr
    assert "pruned: 0" in result.stdout
    report = villagelab("report", "--study", "front", "--runs-dir", str(runs))
    assert report.returncode == 0 and "Pareto front" in report.stdout


def test_guardrails_are_optuna_constraints(tmp_path):
    leaky = tmp_path / "leaky.yaml"
    leaky.write_text(
        (ROOT / "policies" / "careful.yaml")
        .read_text()
        .replace("respect_privacy: true", "respect_privacy: false")
    )
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"scenarios: [secret]\nseeds: 0-2\nfirst: [{leaky}, {ROOT / 'policies' / 'careful.yaml'}]\n"
    )
    runs = tmp_path / "runs"
    assert (
        villagelab(
            "search",
            "--study",
            "fenced",
            "--trials",
            "2",
            "--config",
            str(cfg),
            "--runs-dir",
            str(runs),
            "--serial",
        ).returncode
        == 0
    )
    from experiments.search.study import storage_for

    study = optuna.load_study(
        study_name="fenced", storage=storage_for(None, runs / "optuna.journal")
    )
    first, second = study.trials[:2]
    assert max(first.constraints.values()) > 0  # containment broken: infeasible
    assert max(second.constraints.values()) <= 0
    assert study.best_trial.number == second.number  # only a feasible trial can be best
