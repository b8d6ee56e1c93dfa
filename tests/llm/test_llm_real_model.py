"""A real small model end to end: SmolLM2-135M-Instruct behind llama-cpp-python's server (what
.ci/run serves on 127.0.0.1 with one thread; see .ci/llama_server), played by the LLM agent.

Kept lean (a real call takes about a second here): every structured-output mode once; a short
village scenario and a companion scenario, one seed each, then the village run replayed with
`--cache-only`; a two-trial search over prompt templates on the shortest scenario. Skipped with
the reason when no server is at VILLAGELAB_LLAMA_URL; in CI a missing server fails them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harness.agents.llm import (
    Accounted,
    Budgets,
    ChatCall,
    FormatRefused,
    Message,
    Purpose,
    ResponseCache,
    StructuredOutput,
    ask,
    connect,
)
from harness.agents.llm.client import probe_format
from harness.agents.llm.config import EndpointConfig
from harness.agents.llm.structured import as_json, choice, record
from tests.conftest import villagelab

ROOT = Path(__file__).resolve().parents[2]
CAREFUL = str(ROOT / "policies" / "careful.yaml")
pytestmark = [pytest.mark.real_model, pytest.mark.slow]
OUTCOMES = {"valid", "corrected", "rejected", "fell_back", "chose_nothing"}
# llm_calls columns that say how this run's calls went, not what was asked and answered
TIMING = ["latency_ms", "overhead_ms", "cache_hit", "attempts", "tokens_reused"]


def _endpoint(real_model, **changes) -> EndpointConfig:
    return EndpointConfig(
        base_url=real_model.base_url,
        model=real_model.model,
        timeout_s=120,
        max_retries=1,
        max_concurrent=1,
        **changes,
    )


def _call(mode: StructuredOutput) -> ChatCall:
    schema = record(modality=choice(["certain", "likely", "rumor"], "how sure it is"))
    return ChatCall(
        Purpose.ANSWER,
        (
            Message("system", "You answer with JSON only."),
            Message(
                "user",
                "Someone said the bridge might be blocked tomorrow. How sure is that: "
                "certain, likely or rumor?",
            ),
        ),
        0.0,
        32,
        7,
        schema_name="answer",
        schema_json=as_json(schema),
        structured_output=mode,
        agent="ana",
    )


def test_auto_finds_the_mode_llama_cpp_python_takes(real_model, tmp_path):
    assert probe_format(_endpoint(real_model), None, tmp_path) == "json_object_schema"
    with pytest.raises(FormatRefused, match="Input should be 'text' or 'json_object'"):
        connect(_endpoint(real_model), None, tmp_path).complete(_call(StructuredOutput.JSON_SCHEMA))


@pytest.mark.parametrize(
    "mode",
    [StructuredOutput.JSON_OBJECT_SCHEMA, StructuredOutput.JSON_OBJECT, StructuredOutput.PROMPT],
    ids=str,
)
def test_every_mode_the_server_takes_is_validated_against_the_same_schema(
    mode, real_model, tmp_path
):
    ep = _endpoint(real_model)
    model = Accounted(
        ResponseCache(tmp_path / "c.sqlite"), connect(ep, None, tmp_path), ep.model, Budgets()
    )
    value = ask(model, _call(mode), parse_retries=1)
    rows = model.drain()
    assert rows and all(r.structured_output == str(mode) and r.tokens_in > 0 for r in rows)
    assert {r.outcome for r in rows} <= OUTCOMES
    if value is not None:  # whatever the mode, what comes back follows the schema
        assert value["modality"] in ("certain", "likely", "rumor")
    if mode == StructuredOutput.JSON_OBJECT_SCHEMA:  # decoding constrained to the schema
        assert value is not None and rows[0].outcome == "valid"


def _config(folder: Path, real_model) -> str:
    path = folder / "llm.yaml"
    path.write_text(
        json.dumps(
            {
                "endpoint": {
                    "base_url": real_model.base_url,
                    "model": real_model.model,
                    "timeout_s": 120,
                    "max_concurrent": 1,
                },
                "calls": {"max_tokens": 128},
            }
        )
    )
    return str(path)


def _lines(stdout: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in stdout.splitlines() if ": " in line)


@pytest.fixture(scope="module")
def played(real_model, tmp_path_factory):
    """A short village scenario and a companion scenario, one seed each, then the village
    run again from the cache alone."""

    folder = tmp_path_factory.mktemp("real")
    config = _config(folder, real_model)
    runs = {}
    for out, scenario, extra in (
        ("village", "picnic_request", ()),
        ("companion", "companion_crisis", ()),
        ("replay", "picnic_request", ("--cache-only",)),
    ):
        args = f"run --agent llm --scenario {scenario} --seeds 0 --serial --out {out}".split()
        runs[out] = villagelab(
            *args, "--llm-config", config, "--policy", CAREFUL, *extra, cwd=folder
        )
    return folder, runs


@pytest.mark.parametrize("out", ["village", "companion"])
def test_the_llm_agent_plays_a_real_model_to_a_scored_end(played, out):
    folder, runs = played
    r = runs[out]
    assert r.returncode in (0, 1), r.stderr  # scored; a guardrail may break, nothing failed
    assert "episodes: 1 ok, 0 not ok" in r.stdout
    lines = _lines(r.stdout)
    assert int(lines["llm_calls"]) > 0 and lines["llm_cache_hit_rate"] == "0.000"
    manifest = json.loads((folder / out / "manifest.json").read_text())
    assert manifest["llm_structured_output"] == "json_object_schema"
    calls = pd.read_parquet(folder / out / "traces" / "llm_calls")
    assert (calls["structured_output"] == "json_object_schema").all()
    assert calls["outcome"].isin(OUTCOMES).all()  # every reply says what became of it
    table = "dialogue" if out == "companion" else "utterances"
    assert len(pd.read_parquet(folder / out / "traces" / table)) > 0


def test_a_cache_only_replay_makes_no_call_and_writes_the_same_traces(played):
    folder, runs = played
    r = runs["replay"]
    assert r.returncode == runs["village"].returncode, r.stderr
    lines = _lines(r.stdout)
    assert lines["llm_calls_made"] == "0" and lines["llm_cache_hit_rate"] == "1.000"
    first, again = folder / "village" / "traces", folder / "replay" / "traces"
    for f in sorted(first.rglob("*.parquet")):
        twin = again / f.relative_to(first)
        if "llm_calls" not in f.parts:
            assert f.read_bytes() == twin.read_bytes(), f
    made = pd.read_parquet(first / "llm_calls").drop(columns=TIMING)
    replayed = pd.read_parquet(again / "llm_calls").drop(columns=TIMING)
    pd.testing.assert_frame_equal(made, replayed)


def test_a_two_trial_search_over_prompt_templates(real_model, tmp_path):
    from mlflow.tracking import MlflowClient

    careful = Path(CAREFUL).read_text()
    for name, act, share in (("a", "responsive", "eager"), ("b", "steady", "discreet")):
        text = f"{careful.rstrip()}\nprompt:\n  act: {act}\n  share: {share}\n"
        (tmp_path / f"{name}.yaml").write_text(text)
    # careful.yaml is the champion and no promotion is possible (margin 1): two trials, each
    # one episode of the shortest scenario, and no confirmation seeds
    (tmp_path / "search.yaml").write_text(
        f"scenarios: [secret]\nseeds: 0-0\nmargin: 1.0\nstart_policy: {CAREFUL}\n"
        "first: [a.yaml, b.yaml]\n"
    )
    args = "search --study prompts --trials 2 --config search.yaml --runs-dir runs --serial"
    config = _config(tmp_path, real_model)
    r = villagelab(*args.split(), "--agent", "llm", "--llm-config", config, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    client = MlflowClient(f"sqlite:///{tmp_path / 'runs' / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("prompts")
    trials = [
        run
        for run in client.search_runs([experiment.experiment_id])
        if "villagelab.decision" in run.data.tags
    ]
    assert len(trials) == 2
    assert {t.data.params["prompt.act"] for t in trials} == {"responsive", "steady"}
    for t in trials:
        assert t.data.metrics["llm_calls"] > 0 and t.data.metrics["llm_tokens_in"] > 0
        assert t.data.tags["villagelab.llm_structured_output"] == "json_object_schema"
