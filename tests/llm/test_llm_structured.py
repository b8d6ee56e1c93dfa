"""Structured output: schemas for response_format, tolerant parsing, bounded corrections."""

from __future__ import annotations

import json

import pytest

from harness.agents.llm import (
    Accounted,
    Budgets,
    ChatCall,
    Message,
    Purpose,
    ReplyInvalid,
    ResponseCache,
    ask,
    connect,
    parse,
)
from harness.agents.llm.config import EndpointConfig
from harness.agents.llm.structured import as_json, choice, listing, record, words

CLAIMS = record(
    claims=listing(
        record(
            memory=choice(["m1", "m2"]),
            modality=choice(["certain", "likely", "rumor"]),
            words=words(),
        ),
        2,
    )
)


def test_schemas_are_strict_objects():
    assert CLAIMS["required"] == ["claims"] and CLAIMS["additionalProperties"] is False
    item = CLAIMS["properties"]["claims"]["items"]
    assert item["required"] == ["memory", "modality", "words"]


@pytest.mark.parametrize(
    "content",
    [
        '{"claims": [{"memory": "m1", "modality": "likely", "words": "hi"}]}',
        '```json\n{"claims": [{"memory": "m1", "modality": "likely", "words": "hi"}]}\n```',
        'Sure! {"claims": [{"memory": "M1", "modality": "Likely", "words": " hi "}]} Hope it helps.',
        '{"claims": {"memory": "m1", "modality": "likely", "words": "hi", "mood": "happy"}}',
        '{"claims": [{"memory": "m1", "modality": "likely", "words": "hi"}, {"memory": "m9"}]}',
    ],
)
def test_tolerant_parsing_forgives_common_slips(content):
    assert parse(content, CLAIMS) == {
        "claims": [{"memory": "m1", "modality": "likely", "words": "hi"}]
    }


def test_lists_are_cut_to_their_maximum():
    many = {"claims": [{"memory": "m1", "modality": "rumor", "words": str(i)} for i in range(5)]}
    assert len(parse(json.dumps(many), CLAIMS)["claims"]) == 2


@pytest.mark.parametrize(
    "content,reason",
    [
        ("no json at all", "not JSON"),
        ('{"talk": []}', "lacks 'claims'"),
        ('{"claims": [{"memory": "m7", "modality": "likely", "words": "x"}]}', "no item"),
        ('{"claims": "lots"}', "should be a list"),
    ],
)
def test_what_cannot_be_forgiven_says_why(content, reason):
    with pytest.raises(ReplyInvalid, match=reason):
        parse(content, CLAIMS)


def _model(standin_url: str, tmp_path) -> Accounted:
    ep = EndpointConfig(base_url=standin_url, model="standin-1", max_retries=0)
    return Accounted(
        ResponseCache(tmp_path / "c.sqlite"), connect(ep, None, tmp_path), "standin-1", Budgets()
    )


def _call() -> ChatCall:
    return ChatCall(
        Purpose.SHARE,
        (Message("system", "JSON only."), Message("user", "- [m2] you think it likely: rain")),
        0.0,
        128,
        1,
        "claims",
        as_json(CLAIMS),
        agent="ana",
    )


def test_a_garbled_reply_is_corrected_within_the_bound(standin_factory, tmp_path):
    server = standin_factory("--garble-first", "1")
    model = _model(server.base_url, tmp_path)
    value = ask(model, _call(), parse_retries=2)
    assert value == {
        "claims": [{"memory": "m2", "modality": "likely", "words": "I think it likely: rain"}]
    }
    garbled, fixed = model.drain()
    assert garbled.error.startswith("unparsable reply (1/3): it is not JSON")
    assert fixed.error is None


def test_a_reply_never_parsed_is_rows_and_none_never_a_crash(standin_factory, tmp_path):
    server = standin_factory("--garble-first", "100")
    model = _model(server.base_url, tmp_path)
    assert ask(model, _call(), parse_retries=2) is None
    rows = model.drain()
    assert [r.error.split(":")[0] for r in rows] == [
        "unparsable reply (1/3)",
        "unparsable reply (2/3)",
        "unparsable reply (3/3)",
    ]
    assert server.stats()["structured"] == 3


def test_an_empty_list_is_no_answer_where_the_schema_asks_for_one_item():
    least = record(claims=listing(record(memory=choice(["m1", "m2"])), 2, min_items=1))
    assert least["properties"]["claims"]["minItems"] == 1
    with pytest.raises(ReplyInvalid, match="at least 1 item"):
        parse('{"claims": []}', least)
    assert parse('{"claims": [{"memory": "m2"}]}', least) == {"claims": [{"memory": "m2"}]}
    assert "minItems" not in listing(words(), 2)  # an empty list stays an answer by default


def test_the_share_schema_needs_a_claim_unless_silence_is_allowed():
    from harness.agents.llm.phrasing import share_schema

    eager = share_schema(["m1"], ["none", "self"], 2, 1)["properties"]["claims"]
    discreet = share_schema(["m1"], ["none", "self"], 2, 0)["properties"]["claims"]
    assert eager["minItems"] == 1 and "may be empty" not in eager["description"]
    assert "minItems" not in discreet and "may be empty" in discreet["description"]
