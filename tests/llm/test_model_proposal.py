"""`--proposer llm`: a model asked for one whitelisted change at a plateau. The moves it may
choose are the whitelist's; its reply is parsed against them, cached and counted; a search
runs the move as a trial and records that the model proposed it. Against the stand-in model
over real HTTP, and once against the real model."""

from __future__ import annotations

import json
from pathlib import Path

import optuna
import pytest
from llm_servers import config_text

from experiments.search.diagnosis import show_value
from experiments.search.model_proposal import ModelProposer, moves
from harness.agents.llm import load_llm_config
from policies import BY_NAME, WHITELIST, load_policy
from scorecards import assemble, load_definition
from tests.conftest import villagelab

ROOT = Path(__file__).resolve().parents[2]
CAREFUL = load_policy(ROOT / "policies" / "careful.yaml")
BASELINE = ROOT / "policies" / "baseline.yaml"
DEFINITION = load_definition()
SURFACE = tuple(p.name for p in WHITELIST if p.family not in ("prompt", "llm"))


def _card(reach: float, provenance: float):  # type: ignore[no-untyped-def]
    values = {
        "public_fact": {
            "reach": {s: reach for s in range(3)},
            "provenance": {s: provenance for s in range(3)},
        }
    }
    return assemble(values, DEFINITION, hashes={"harness": "h", "instrument": "i", "policy": "p"})


def test_the_moves_are_the_whitelists_single_changes_a_threshold_with_its_switch():
    leaky = CAREFUL.with_values({"sharing.respect_privacy": False})
    found = moves(leaky, SURFACE)
    for move in found:
        *switch, (name, old, new) = move.changes
        p = BY_NAME[name]
        assert old == leaky[name] and new != old
        leaky.with_values({n: v for n, _, v in move.changes})  # every move is a valid policy
        if p.kind in ("int", "float"):
            assert p.low <= new <= p.high  # type: ignore[operator]
        if p.requires == "sharing.respect_privacy":
            assert switch == [("sharing.respect_privacy", False, True)]
        else:
            assert switch == []
    labels = [m.label for m in found]
    assert "sharing.respect_privacy = true" in labels
    assert len(labels) == len(set(labels))


@pytest.fixture
def proposer(standin, tmp_path) -> ModelProposer:
    path = tmp_path / "llm.yaml"
    path.write_text(config_text(standin.base_url))
    return ModelProposer(load_llm_config(path), tmp_path / "runs", "aimed")


def test_the_model_chooses_one_whitelisted_move_cached_and_counted(proposer):
    card = _card(reach=0.2, provenance=0.9)
    options = {m.label: m for m in moves(CAREFUL, SURFACE)}
    found, note = proposer.propose(card, DEFINITION, CAREFUL, SURFACE)
    assert found is not None, note
    label = note.split(": ", 1)[0]
    assert label in options and found.moves == options[label].changes
    assert proposer.usage()["llm_calls"] == 1 and proposer.usage()["llm_cache_hits"] == 0
    again, _ = proposer.propose(card, DEFINITION, CAREFUL, SURFACE)  # the same question
    assert again == found and proposer.usage()["llm_cache_hits"] == 1
    other, note2 = proposer.propose(card, DEFINITION, CAREFUL, SURFACE, tried=[label])
    assert other is not None and note2.split(": ", 1)[0] != label  # what was tried is not offered
    row = proposer.model.rows[-1]
    assert (
        row.purpose == "propose" and row.outcome == "valid" and f"not kept: {label}." in row.prompt
    )


def test_an_endpoint_that_fails_leaves_the_proposal_to_the_rules(standin_factory, tmp_path):
    server = standin_factory("--fail-first", "1000")
    path = tmp_path / "llm.yaml"
    path.write_text(config_text(server.base_url, endpoint={"structured_output": "json_schema"}))
    proposer = ModelProposer(load_llm_config(path), tmp_path / "runs", "aimed")
    found, note = proposer.propose(_card(0.2, 0.9), DEFINITION, CAREFUL, SURFACE)
    assert found is None and note.startswith("the model did not answer") and "HTTP 503" in note
    assert proposer.usage()["llm_errors"] == 1


@pytest.mark.slow
def test_bad_proposer_options_exit_2_naming_what_is_expected(tmp_path):
    args = ["search", "--study", "s", "--runs-dir", str(tmp_path / "runs"), "--serial"]
    r = villagelab(*args, "--proposer", "llm")
    assert r.returncode == 2 and "expected --proposer-config FILE" in r.stderr, r.stderr
    r = villagelab(*args, "--proposer-config", str(tmp_path / "x.yaml"))
    assert r.returncode == 2 and "only --proposer llm" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "runs").exists()


def _search(tmp_path: Path, base_url: str, model: str | None = None) -> optuna.Study:
    config = tmp_path / "search.yaml"
    config.write_text(
        f"scenarios: [public_fact]\nseeds: 0-1\nstart_policy: {BASELINE}\ndiagnose_after: 1\n"
    )
    llm = tmp_path / "llm.yaml"
    sections = {"endpoint": {"model": model, "timeout_s": 120}} if model else {}
    llm.write_text(config_text(base_url, **sections))
    runs = tmp_path / "runs"
    out = villagelab(
        *("search", "--study", "aimed", "--config", str(config), "--runs-dir", str(runs)),
        *("--serial", "--trials", "3", "--proposer", "llm", "--proposer-config", str(llm)),
    )
    assert out.returncode == 0, out.stderr
    from experiments.search.study import storage_for

    return optuna.load_study(study_name="aimed", storage=storage_for(None, runs / "optuna.journal"))


def _counted(tmp_path: Path) -> float:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(f"sqlite:///{tmp_path / 'runs' / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("aimed")
    parents = [
        r
        for r in client.search_runs([experiment.experiment_id])
        if "villagelab.decision" not in r.data.tags
    ]
    return max(r.data.metrics.get("proposer_llm_calls", 0.0) for r in parents)


@pytest.mark.slow
def test_a_search_runs_the_models_move_as_a_trial_and_says_so(standin, tmp_path):
    study = _search(tmp_path, standin.base_url)
    asked = [t for t in study.trials if "proposer" in t.user_attrs]
    assert asked, [t.user_attrs.get("reason") for t in study.trials]
    for t in asked:
        assert t.user_attrs["reason"].startswith(f"diagnosis: {t.user_attrs['diagnosis']}; ")
        label = t.user_attrs["proposer"].split(": ", 1)[0]
        for change in label.split(", "):
            name, value = change.split(" = ")
            assert name in BY_NAME
            assert show_value(t.params[name]) == value
    assert _counted(tmp_path) >= 1


@pytest.mark.slow
@pytest.mark.real_model
def test_a_real_model_proposes_a_move_the_search_runs(real_model, tmp_path):
    study = _search(tmp_path, real_model.base_url, real_model.model)
    asked = [t for t in study.trials if "proposer" in t.user_attrs]
    assert asked, [t.user_attrs.get("reason") for t in study.trials]
    assert _counted(tmp_path) >= 1
    print(json.dumps([t.user_attrs["proposer"] for t in asked], indent=1))
