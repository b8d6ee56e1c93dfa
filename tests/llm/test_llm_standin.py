"""The stand-in model: the chat-completions protocol over real HTTP, and its documented rules."""

from __future__ import annotations

import json

import httpx

from experiments.standin import rules

SHARE = {
    "type": "object",
    "properties": {
        "claims": {
            "type": "array",
            "maxItems": 2,
            "items": {
                "type": "object",
                "properties": {
                    "memory": {"type": "string", "enum": ["m1", "m3", "m7"]},
                    "modality": {"type": "string", "enum": ["certain", "likely", "rumor"]},
                    "source": {"type": "string", "enum": ["none", "self", "ana", "bo"]},
                    "words": {"type": "string"},
                },
            },
        }
    },
}
MEMORIES = """It is the morning of day 1, at the square. You are chatting with bo.
- [m3] the bakery is closed on day 2; ana told you; you think it likely.
- [m7] the bridge is blocked on day 1; you saw it yourself (self); you are certain of it.
- [m1] the park is nice.
What do you tell bo?"""


def _body(content: str, schema: dict | None = None) -> dict:
    body = {
        "model": "standin-1",
        "messages": [
            {"role": "system", "content": "You are bo. Reply with JSON only."},
            {"role": "user", "content": content},
        ],
        "temperature": 0.7,
        "seed": 3,
    }
    if schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "x", "strict": True, "schema": schema},
        }
    return body


def test_structured_reply_follows_the_schema_over_http(standin):
    r = httpx.post(f"{standin.base_url}/chat/completions", json=_body(MEMORIES, SHARE))
    assert r.status_code == 200
    data = r.json()
    assert data["object"] == "chat.completion" and data["model"] == "standin-1"
    claims = json.loads(data["choices"][0]["message"]["content"])["claims"]
    assert [c["memory"] for c in claims] == ["m3", "m7"]  # maxItems 2, in order of mention
    assert claims[0] == {
        "memory": "m3",
        "modality": "likely",
        "source": "ana",
        "words": "the bakery is closed on day 2; ana told me; I think it likely.",
    }
    assert claims[1]["modality"] == "certain" and claims[1]["source"] == "self"
    usage = data["usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_same_request_same_reply_whatever_the_temperature(standin):
    url = f"{standin.base_url}/chat/completions"
    a = httpx.post(url, json=_body(MEMORIES, SHARE)).json()["choices"][0]["message"]
    hot = {**_body(MEMORIES, SHARE), "temperature": 1.2, "seed": 99}
    b = httpx.post(url, json=hot).json()["choices"][0]["message"]
    assert a == b


def test_text_and_json_object_replies(standin):
    url = f"{standin.base_url}/chat/completions"
    text = httpx.post(url, json=_body("- [x] you are at the square")).json()
    assert text["choices"][0]["message"]["content"] == "I am at the square"
    body = {**_body("hello there"), "response_format": {"type": "json_object"}}
    content = httpx.post(url, json=body).json()["choices"][0]["message"]["content"]
    assert json.loads(content) == {"reply": "hello there"}


def test_protocol_errors_are_openai_shaped(standin):
    url = f"{standin.base_url}/chat/completions"
    bad = httpx.post(url, json={"model": "standin-1", "messages": []})
    assert bad.status_code == 400 and "messages" in bad.json()["error"]["message"]
    other = httpx.post(url, json={**_body("hi"), "model": "gpt-x"})
    assert other.status_code == 404 and "gpt-x" in other.json()["error"]["message"]
    models = httpx.get(f"{standin.base_url}/models").json()
    assert [m["id"] for m in models["data"]] == ["standin-1"]


def test_api_key_is_required_when_configured(standin_factory):
    server = standin_factory("--api-key-env", "STANDIN_KEY", env={"STANDIN_KEY": "sk-test-1"})
    url = f"{server.base_url}/chat/completions"
    assert httpx.post(url, json=_body("hi")).status_code == 401
    ok = httpx.post(url, json=_body("hi"), headers={"Authorization": "Bearer sk-test-1"})
    assert ok.status_code == 200


def test_rule_enum_earliest_mention_and_ruled_out():
    places = ["bakery", "home_ana", "market"]
    assert rules.pick(places, "go to the market, then the bakery", "") == "market"
    whole = "the bakery is closed on day 2\nYour plan: buy bread at the bakery or market"
    assert rules.pick(places, "Your plan: buy bread at the bakery or market", whole) == "market"
    assert rules.ruled_out("bridge", "avoid the bridge today")
    assert not rules.ruled_out("m3", "- [m3] the bakery is closed")
    assert rules.pick(places, "nothing named", "") == "bakery"  # none mentioned: the first


def test_rule_selector_narrows_the_focus():
    schema = {
        "type": "object",
        "properties": {
            "memory": {"type": "string", "enum": ["none", "m2", "m5"]},
            "source": {"type": "string", "enum": ["none", "self", "ana", "cai"]},
        },
    }
    focus = "Is the bakery closed?\n- [m5] cai told you so\n- [m2] ana told you so"
    assert rules.instance(schema, focus, focus) == {"memory": "m5", "source": "cai"}
    assert rules.instance(schema, "Is it?", "Is it?") == {"memory": "none", "source": "none"}


def test_rule_a_list_is_topped_up_to_its_minimum():
    item = {"type": "object", "properties": {"memory": {"type": "string", "enum": ["m1", "m2"]}}}
    schema = {"type": "array", "items": item, "maxItems": 2, "minItems": 1}
    assert rules.instance(schema, "nothing here", "nothing here") == [{"memory": "m1"}]
    assert rules.instance({**schema, "minItems": 0}, "nothing here", "nothing here") == []
