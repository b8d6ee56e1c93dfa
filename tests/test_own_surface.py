"""An agent's own policy surface (issue 47): parameters a plug-in declares as
`policies.Param` records, and prompt families as `policies.PromptFamily`, beside the
whitelisted names it reads are validated, shown, diffed, run, swept, searched, exported and
gated like the built-in ones (`examples/gossip.py`, loaded from the repository's root as a
user would); a policy naming a parameter its surface lacks is refused, located; an edited
prompt file is a changed agent."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from experiments.evaluation.gate import changed_prompts
from harness.agents.registry import agent_hash, prompt_digests, resolve
from policies import BUILTIN, InputError, Param, Policy, PromptFamily, declared, load_policy

from .conftest import ROOT, villagelab

AGENT = "examples.gossip:Gossip"
POLICY = ROOT / "examples" / "gossip_policy.yaml"


def test_an_agents_own_parameters_join_the_whitelist_in_families_of_their_own() -> None:
    own = Param("gossip.retell_limit", "int", 3, "partners told at most", low=1, high=8)
    surface = declared([own], "--agent 'x'")
    assert surface.by_name["gossip.retell_limit"] is own
    assert set(BUILTIN.names) < set(surface.names)
    for bad, expected in [
        (Param("sharing.mine", "bool", True, "x"), "in the built-in family 'sharing'"),
        (Param("Gossip.limit", "bool", True, "x"), "expected family.parameter in snake_case"),
        (Param("gossip.limit", "int", 9, "x", low=1, high=8), "default 9 is not an integer"),
    ]:
        with pytest.raises(InputError, match=bad.name.replace(".", r"\.")) as info:
            declared([bad], "--agent 'x'")
        assert expected in str(info.value)
    with pytest.raises(InputError, match="declared twice"):
        declared([own, own], "--agent 'x'")


def test_a_policy_on_an_agents_surface_travels_whole_and_the_builtin_hash_is_unchanged() -> None:
    chosen = resolve(AGENT)
    assert [p.name for p in chosen.own] == [
        "gossip.retell_limit",
        "gossip.name_source",
        "gossip.detour_doubt",
        "gossip.wording",
    ]
    policy = chosen.load_policy(POLICY)
    assert (policy["gossip.retell_limit"], policy["gossip.detour_doubt"]) == (3, 0)
    assert pickle.loads(pickle.dumps(policy)) == policy  # to a worker, surface and all
    assert pickle.loads(pickle.dumps(policy)).surface == policy.surface
    # the built-in whitelist's policies hash as before (baselines and studies keep theirs)
    assert load_policy(ROOT / "policies" / "careful.yaml").hash == "0635d32e32b9d711"
    with pytest.raises(InputError, match="not on the policy surface of"):
        Policy({"gossip.retell_limt": 2}, policy.surface)


@pytest.mark.slow
def test_validate_show_and_diff_take_the_agents_surface_and_locate_a_misspelling(
    tmp_path: Path,
) -> None:
    ok = villagelab("policy", "validate", str(POLICY), "--agent", AGENT, cwd=ROOT)
    assert ok.returncode == 0 and "ok (policy" in ok.stdout, ok.stderr
    shown = villagelab("policy", "show", str(POLICY), "--agent", AGENT, cwd=ROOT)
    assert "gossip.retell_limit" in shown.stdout and "partners it passes" in shown.stdout
    misspelt = tmp_path / "p.yaml"
    misspelt.write_text("gossip:\n  retell_limt: 2\n")
    bad = villagelab("policy", "validate", str(misspelt), "--agent", AGENT, cwd=ROOT)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert f"{misspelt}:2: gossip.retell_limt: not on the policy surface of" in bad.stderr
    allowed = "gossip.retell_limit, gossip.name_source, gossip.detour_doubt, gossip.wording"
    assert f"allowed here: {allowed}" in bad.stderr
    builtin = villagelab("policy", "validate", str(POLICY), cwd=ROOT)
    assert builtin.returncode == 2 and "gossip: not on the whitelist" in builtin.stderr
    other = tmp_path / "q.yaml"
    other.write_text("gossip:\n  retell_limit: 7\n")
    diffed = villagelab("policy", "diff", str(POLICY), str(other), "--agent", AGENT, cwd=ROOT)
    assert diffed.returncode == 0 and "gossip.retell_limit" in diffed.stdout


@pytest.mark.slow
def test_run_and_sweep_set_the_agents_own_knob(
    tmp_path: Path,
) -> None:
    def told(limit: int) -> int:
        policy = tmp_path / f"p{limit}.yaml"
        policy.write_text(f"gossip:\n  retell_limit: {limit}\n")
        out = tmp_path / f"run{limit}"
        done = villagelab(
            *("run", "--scenario", "public_fact", "--policy", str(policy), "--agent", AGENT),
            *("--seeds", "0", "--serial", "--out", str(out)),
            cwd=ROOT,
        )
        assert done.returncode in (0, 1), done.stderr  # 1: a guardrail broken, all written
        import pyarrow.parquet as pq

        return pq.read_table(out / "traces" / "utterances" / "public_fact" / "0.parquet").num_rows

    assert told(1) < told(8)  # the agent read its own knob, as set in the file
    swept = villagelab(
        *("sweep", "--param", "gossip.retell_limit", "--values", "1,8", "--agent", AGENT),
        *("--scenario", "public_fact", "--seeds", "0", "--serial", "--policy", str(POLICY)),
        cwd=ROOT,
    )
    assert swept.returncode in (0, 1), swept.stderr
    line = next(x for x in swept.stdout.splitlines() if x.startswith("objective by"))
    assert line.startswith("objective by gossip.retell_limit: 1: ") and ", 8: " in line


@pytest.mark.slow
def test_a_search_samples_the_agents_own_knobs_and_its_champion_keeps_them(
    tmp_path: Path,
) -> None:
    config = tmp_path / "search.yaml"
    config.write_text(f'scenarios: [public_fact]\nseeds: "0-1"\nstart_policy: {POLICY}\n')
    runs = tmp_path / "runs"
    searched = villagelab(
        *("search", "--study", "own", "--trials", "3", "--agent", AGENT, "--serial"),
        *("--config", str(config), "--runs-dir", str(runs)),
        cwd=ROOT,
    )
    assert searched.returncode == 0, searched.stderr
    assert "4 of them its own" in searched.stderr  # what it searches, said before it begins
    import optuna

    from experiments.search.study import storage_for

    study = optuna.load_study(study_name="own", storage=storage_for(None, runs / "optuna.journal"))
    sampled = [t.params for t in study.trials if t.params]
    assert sampled and all("gossip.retell_limit" in p for p in sampled)
    from mlflow.tracking import MlflowClient

    # what its own table declares summed (the words it spent retelling) is logged per trial
    client = MlflowClient(f"sqlite:///{runs / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("own")
    trials = [
        run.data.metrics
        for run in client.search_runs([experiment.experiment_id])
        if "villagelab.decision" in run.data.tags
    ]
    assert len(trials) == 3
    for metrics in trials:
        assert (
            metrics["usage_gossip_retellings.words"] > metrics["usage_gossip_retellings.rows"] > 0
        )
    exported = tmp_path / "champion.yaml"
    done = villagelab("champion", "export", str(exported), "--runs-dir", str(runs), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "gossip:" in exported.read_text() and "retell_limit:" in exported.read_text()
    again = villagelab("policy", "validate", str(exported), "--agent", AGENT, cwd=ROOT)
    assert again.returncode == 0, again.stderr


def _family(folder: Path, **variants: str) -> PromptFamily:
    folder.mkdir(exist_ok=True)
    for name, text in variants.items():
        (folder / f"{name}.txt").write_text(text)
    return PromptFamily("mine.greeting", str(folder), ("name",), "warm", "how it greets")


def test_a_prompt_family_is_a_categorical_parameter_over_its_checked_variants(
    tmp_path: Path,
) -> None:
    family = _family(tmp_path / "ok", warm="Hello $name!", curt="${name}.")
    param = family.param("--agent 'x'")
    assert (param.kind, param.choices, param.default) == ("categorical", ("curt", "warm"), "warm")
    assert family.template("curt") == "${name}."
    for folder, variants, expected in [
        ("none", {}, "no <variant>.txt in"),
        ("nodefault", {"cold": "$name"}, "default 'warm' is not a variant; expected one of cold"),
        ("lacking", {"warm": "Hello!"}, "variant 'warm' does not use $name"),
        ("unknown", {"warm": "$name $mood"}, "uses $mood, which it is not given"),
        ("dollar", {"warm": "$name owes $5"}, "a $ that starts no placeholder"),
    ]:
        with pytest.raises(InputError, match="mine.greeting") as info:
            _family(tmp_path / folder, **variants).param("--agent 'x'")
        assert expected in str(info.value)


def test_an_edited_prompt_file_changes_the_agents_hash_and_names_itself(tmp_path: Path) -> None:
    family = _family(tmp_path / "p", warm="Hello $name!", curt="$name.")

    def factory() -> type:  # a new class each time: the hash is cached per factory
        return type("Greeter", (), {"policy_surface": (family,), "__module__": __name__})

    before_hash, before = agent_hash(factory()), prompt_digests(factory())
    assert set(before) == {"mine.greeting/curt.txt", "mine.greeting/warm.txt"}
    (tmp_path / "p" / "curt.txt").write_text("$name!")
    assert agent_hash(factory()) != before_hash
    assert changed_prompts(before, prompt_digests(factory())) == ["mine.greeting/curt.txt"]
    (tmp_path / "p" / "cold.txt").write_text("$name")
    assert "mine.greeting/cold.txt" in changed_prompts(before, prompt_digests(factory()))


@pytest.mark.slow
def test_the_gate_exits_3_when_a_prompt_file_changed_since_its_baseline(tmp_path: Path) -> None:
    # the example copied as a user's own module, so that editing it leaves the repository be
    shutil.copy(ROOT / "examples" / "gossip.py", tmp_path / "my_gossip.py")
    shutil.copytree(ROOT / "examples" / "gossip_wording", tmp_path / "gossip_wording")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "scenarios: [public_fact]\n"
        "seeds: {selection: 0, confirmation_start: 10000, gate: 100-101, test: 200}\n"
    )
    gate = (
        *("gate", "--policy", str(POLICY), "--agent", "my_gossip:Gossip", "--serial"),
        *("--suite", str(suite), "--baseline", str(tmp_path / "base.json"), "--no-mlflow"),
    )
    made = villagelab(*gate, "--update-baseline", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    same = villagelab(*gate, cwd=tmp_path)
    assert same.returncode == 0 and "gate: pass" in same.stdout, same.stdout + same.stderr
    with (tmp_path / "gossip_wording" / "hedged.txt").open("a") as edited:
        edited.write("Really.\n")  # the variant the policy does not even choose
    changed = villagelab(*gate, cwd=tmp_path)
    assert changed.returncode == 3, changed.stdout + changed.stderr
    assert "prompt files changed since the baseline" in changed.stderr
    assert "(gossip.wording/hedged.txt)" in changed.stderr


def test_the_llm_agents_templates_are_prompts_a_gate_names_when_edited() -> None:
    # its templates are files it hashes beside its code: each one's digest goes in a baseline,
    # so an edited template makes the gate exit 3 naming it, as a prompt family's file does
    from harness.agents.llm import LLMAgentFactory
    from harness.agents.llm.prompts import prompt_files

    digests = prompt_digests(LLMAgentFactory)
    assert len(digests) == len(prompt_files()) > 0
    assert all(name.startswith("policies/prompts/") for name in digests)
