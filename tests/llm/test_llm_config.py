"""The LLM config file: validated, located errors, the key only ever named, never written."""

from __future__ import annotations

import pytest

from harness.agents.llm import load_llm_config
from policies import InputError

GOOD = """\
endpoint:
  base_url: http://127.0.0.1:8765/v1/
  model: standin-1
  api_key_env: VILLAGELAB_TEST_KEY
  max_concurrent: 2
calls:
  max_tokens: 200
cache:
  cache_only: false
budgets:
  episode_tokens: 50000
prices:
  standin-1: {input: 0.5, output: 1.5}
"""


def write(tmp_path, text: str):
    path = tmp_path / "llm.yaml"
    path.write_text(text)
    return path


def test_a_good_file(tmp_path, monkeypatch):
    monkeypatch.setenv("VILLAGELAB_TEST_KEY", "sk-abc")
    config = load_llm_config(write(tmp_path, GOOD))
    assert config.endpoint.base_url == "http://127.0.0.1:8765/v1"
    assert config.api_key() == "sk-abc"
    assert config.price().output == 1.5
    assert config.cache_path(tmp_path) == tmp_path / "llm" / "cache.sqlite"
    assert config.with_cache_only(True).cache.cache_only
    assert "sk-abc" not in repr(config) and "sk-abc" not in config.model_dump_json()


@pytest.mark.parametrize(
    "change,where,expected",
    [
        (
            ("max_concurrent: 2", "max_concurrent: 0"),
            ":5: endpoint.max_concurrent",
            "greater than or equal to 1",
        ),
        (("  model: standin-1\n", ""), ":1: endpoint.model", "missing"),
        (("calls:", "calls:\n  temperature: 0.5"), ":7: calls.temperature", "unknown key"),
        (
            ("base_url: http://127.0.0.1:8765/v1/", "base_url: ftp://x"),
            ":2: endpoint.base_url",
            "http:// or https:// URL",
        ),
        (
            ("{input: 0.5, output: 1.5}", "{input: -1, output: 1.5}"),
            ":13: prices.standin-1.input",
            "greater than or equal to 0",
        ),
    ],
)
def test_bad_input_names_file_line_place_and_expectation(
    tmp_path, monkeypatch, change, where, expected
):
    monkeypatch.setenv("VILLAGELAB_TEST_KEY", "sk-abc")
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(InputError) as error:
        load_llm_config(path)
    message = str(error.value)
    assert f"{path}{where}" in message and expected in message


def test_an_unset_key_variable_is_named_and_cache_only_needs_none(tmp_path, monkeypatch):
    monkeypatch.delenv("VILLAGELAB_TEST_KEY", raising=False)
    with pytest.raises(
        InputError,
        match=r"llm.yaml:4: endpoint.api_key_env: the environment "
        r"variable VILLAGELAB_TEST_KEY is not set",
    ):
        load_llm_config(write(tmp_path, GOOD))
    offline = GOOD.replace("cache_only: false", "cache_only: true")
    assert load_llm_config(write(tmp_path, offline)).cache.cache_only


def test_a_password_in_the_url_is_never_echoed(tmp_path):
    path = write(tmp_path, "endpoint:\n  base_url: htp://user:hunter22@host/v1\n  model: m\n")
    with pytest.raises(InputError) as error:
        load_llm_config(path)
    assert "hunter22" not in str(error.value) and "base_url" in str(error.value)


def test_not_yaml_or_not_a_mapping(tmp_path):
    with pytest.raises(InputError, match=r"llm.yaml:1: at \(top level\): expected a mapping"):
        load_llm_config(write(tmp_path, "- just\n- a list\n"))
    with pytest.raises(InputError, match="not valid YAML"):
        load_llm_config(write(tmp_path, "endpoint: [unclosed\n"))
