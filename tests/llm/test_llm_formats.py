"""Structured output that fits the server: each `structured_output` mode against the stand-in
over real HTTP, the stand-in refusing `json_schema` as llama-cpp-python's server does, and
`auto` finding the mode once, remembering it, and replaying it under cache-only."""

from __future__ import annotations

import json

import pytest

from harness.agents.llm import (
    Accounted,
    Budgets,
    CacheMiss,
    ChatCall,
    Message,
    Purpose,
    ResponseCache,
    ask,
    connect,
)
from harness.agents.llm.calls import FormatRefused, ReplyOutcome
from harness.agents.llm.client import probe_format
from harness.agents.llm.config import EndpointConfig, LLMConfig
from harness.agents.llm.formats import StructuredOutput
from harness.agents.llm.model import resolve_format
from harness.agents.llm.structured import as_json, choice, listing, record

SCHEMA = record(
    place=choice(["bakery", "market", "mill"], "where you go"),
    claims=listing(record(memory=choice(["m1", "m2"])), 2),
)
MODES = [m for m in StructuredOutput if m != StructuredOutput.AUTO]


def endpoint(base_url: str, **changes) -> EndpointConfig:
    return EndpointConfig(
        base_url=base_url,
        model="standin-1",
        max_retries=2,
        backoff_s=0.01,
        backoff_max_s=0.02,
        **changes,
    )


def call(mode: StructuredOutput) -> ChatCall:
    return ChatCall(
        Purpose.ACT,
        (
            Message("system", "You are ana. Reply with JSON only."),
            Message("user", "The bakery is closed. - [m2] the mill is open\nWhere do you go?"),
        ),
        0.0,
        128,
        3,
        schema_name="act",
        schema_json=as_json(SCHEMA),
        structured_output=mode,
        agent="ana",
    )


def accounted(base_url: str, tmp_path) -> Accounted:
    ep = endpoint(base_url)
    return Accounted(
        ResponseCache(tmp_path / "c.sqlite"), connect(ep, None, tmp_path), "standin-1", Budgets()
    )


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_every_mode_asks_for_the_same_schema_and_gets_a_valid_reply(mode, standin, tmp_path):
    body = call(mode).body("standin-1")
    system, user = body["messages"]
    assert system["content"] == "You are ana. Reply with JSON only."  # first and stable
    in_prompt = "follows this JSON schema" in user["content"]
    assert in_prompt == (mode in (StructuredOutput.JSON_OBJECT, StructuredOutput.PROMPT))
    fmt = body.get("response_format")
    assert {
        StructuredOutput.JSON_SCHEMA: "json_schema",
        StructuredOutput.JSON_OBJECT_SCHEMA: "json_object",
        StructuredOutput.JSON_OBJECT: "json_object",
        StructuredOutput.PROMPT: None,
    }[mode] == (fmt or {}).get("type")
    model = accounted(standin.base_url, tmp_path)
    value = ask(model, call(mode), parse_retries=1)
    # the same reply whichever way the schema travelled: the closed bakery is ruled out
    assert value == {"place": "mill", "claims": [{"memory": "m2"}]}
    (row,) = model.drain()
    assert row.structured_output == str(mode) and row.outcome == ReplyOutcome.VALID


def test_modes_are_different_requests_with_different_keys():
    keys = {call(m).key("standin-1") for m in MODES}
    assert len(keys) == len(MODES)


def test_a_refused_response_format_fails_at_once_and_says_what_to_set(standin_factory, tmp_path):
    server = standin_factory("--refuse", "json_schema")
    model = connect(endpoint(server.base_url), None, tmp_path)
    with pytest.raises(FormatRefused) as caught:
        model.complete(call(StructuredOutput.JSON_SCHEMA))
    message = str(caught.value)
    assert "HTTP 500" in message and "Input should be 'text' or 'json_object'" in message
    assert "endpoint.structured_output" in message
    assert server.stats()["completions"] == 0  # refused once, not retried
    assert model.complete(call(StructuredOutput.JSON_OBJECT_SCHEMA)).content


@pytest.mark.parametrize(
    ("flags", "found"),
    [((), StructuredOutput.JSON_SCHEMA), (("--refuse", "json_schema"), "json_object_schema")],
)
def test_auto_probes_once_remembers_and_replays_under_cache_only(
    flags, found, standin_factory, tmp_path
):
    server = standin_factory(*flags)
    config = LLMConfig(endpoint=endpoint(server.base_url))
    assert config.endpoint.structured_output == StructuredOutput.AUTO
    resolved = resolve_format(config, tmp_path)
    assert resolved.endpoint.structured_output == found
    probes = server.stats()["completions"]
    assert probes == 1  # a refusal is not a completion; the accepted probe is
    again = resolve_format(config, tmp_path)  # remembered in the cache file: no second probe
    assert again.endpoint.structured_output == found
    assert server.stats()["completions"] == probes
    server.kill()
    replay = resolve_format(config.with_cache_only(True), tmp_path)
    assert replay.endpoint.structured_output == found


def test_cache_only_with_no_mode_remembered_is_a_cache_miss(tmp_path):
    config = LLMConfig(endpoint=endpoint("http://127.0.0.1:9/v1")).with_cache_only(True)
    with pytest.raises(CacheMiss, match="set endpoint.structured_output"):
        resolve_format(config, tmp_path)


def test_an_explicit_mode_is_never_probed(standin, tmp_path):
    config = LLMConfig(endpoint=endpoint(standin.base_url, structured_output="prompt"))
    assert resolve_format(config, tmp_path).endpoint.structured_output == "prompt"
    assert standin.stats()["completions"] == 0


def test_probe_of_a_server_that_takes_no_response_format_falls_to_prompt(standin_factory, tmp_path):
    """`prompt` is what is left when every response format is refused: probed as the last."""
    server = standin_factory("--refuse", "json_schema", "--refuse", "json_object")
    found = probe_format(endpoint(server.base_url), None, tmp_path)
    assert found == StructuredOutput.PROMPT
    assert server.stats()["completions"] == 0  # every probe refused; prompt needs none


def test_outcomes_say_what_became_of_each_reply(standin_factory, tmp_path):
    server = standin_factory("--garble-first", "1")
    model = accounted(server.base_url, tmp_path)
    assert ask(model, call(StructuredOutput.JSON_OBJECT_SCHEMA), parse_retries=2)
    assert [r.outcome for r in model.drain()] == ["rejected", "corrected"]
    never = standin_factory("--garble-first", "9")
    model = accounted(never.base_url, tmp_path / "n")
    assert ask(model, call(StructuredOutput.PROMPT), parse_retries=1) is None
    assert [r.outcome for r in model.drain()] == ["rejected", "fell_back"]
    model = accounted(never.base_url, tmp_path / "e")
    ask(model, call(StructuredOutput.JSON_SCHEMA), 0, lambda r: True)
    assert [r.outcome for r in model.drain()] == ["fell_back"]


def test_a_reply_that_chooses_nothing_is_traced_as_such(standin, tmp_path):
    model = accounted(standin.base_url, tmp_path)
    value = ask(model, call(StructuredOutput.JSON_SCHEMA), 0, lambda r: r["place"] == "mill")
    assert value["place"] == "mill"
    assert [r.outcome for r in model.drain()] == ["chose_nothing"]


def test_the_mode_is_in_the_config_file_and_a_bad_one_is_named(tmp_path):
    from harness.agents.llm import load_llm_config
    from villagelab.yamlsource import InputError

    bad = tmp_path / "llm.yaml"
    bad.write_text(
        json.dumps({"endpoint": {"base_url": "http://x/v1", "model": "m"}})[:-2]
        + ', "structured_output": "grammar"}}'
    )
    with pytest.raises(InputError) as caught:
        load_llm_config(bad)
    assert f"{bad}:1: endpoint.structured_output: got 'grammar'; expected one of auto" in str(
        caught.value
    )
