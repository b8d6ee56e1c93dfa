"""The response cache: content addresses, first writer wins, many processes writing at once."""

from __future__ import annotations

import json
import multiprocessing as mp
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from harness.agents.llm import (
    Cached,
    CacheMiss,
    ChatCall,
    ChatReply,
    Message,
    Purpose,
    ResponseCache,
    connect,
)
from harness.agents.llm.config import EndpointConfig
from harness.agents.llm.structured import as_json, choice, record


def call(text: str = "- [m1] the bakery is closed", seed: int = 1, **changes) -> ChatCall:
    base = ChatCall(
        Purpose.SHARE,
        (Message("system", "Reply."), Message("user", text)),
        temperature=0.2,
        max_tokens=64,
        seed=seed,
        agent="ana",
        minute=5,
    )
    return replace(base, **changes)


def test_the_key_is_the_request_and_only_the_request():
    key = call().key("m")
    assert call(agent="bo", minute=99, event_id=7).key("m") == key  # accounting only
    assert call().key("other-model") != key
    assert call("- [m1] the bakery is open").key("m") != key
    assert call(seed=2).key("m") != key
    assert call(temperature=0.3).key("m") != key
    assert call(max_tokens=65).key("m") != key
    schema = as_json(record(answer=choice(["yes", "no"])))
    assert call(schema_name="a", schema_json=schema).key("m") != key
    assert call().followed_by(Message("user", "again")).key("m") != key


def test_first_writer_wins(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    c = call()
    assert cache.get(c.key("m")) is None
    first = cache.put(c.key("m"), "m", c, ChatReply("first", 3, 1, 12.5))
    second = cache.put(c.key("m"), "m", c, ChatReply("second", 4, 2, 9.0))
    assert first.content == "first" and second.content == "first"
    hit = cache.get(c.key("m"))
    assert hit == ChatReply("first", 3, 1, 12.5, cache_hit=True, attempts=0)


def test_the_store_is_plain_sqlite_with_the_request_readable(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    c = call()
    cache.put(c.key("m"), "m", c, ChatReply("words", 3, 1, 1.0))
    cache.close()
    row = (
        sqlite3.connect(tmp_path / "c.sqlite")
        .execute("select model, purpose, content, request from replies")
        .fetchone()
    )
    assert row[:3] == ("m", "share", "words")
    assert json.loads(row[3])["messages"][1]["content"] == "- [m1] the bakery is closed"


def test_a_hit_makes_no_call_and_cache_only_turns_a_miss_into_cache_miss(standin, tmp_path):
    ep = EndpointConfig(base_url=standin.base_url, model="standin-1")
    cache = ResponseCache(tmp_path / "c.sqlite")
    model = Cached(connect(ep, None, tmp_path), cache, "standin-1")
    first = model.complete(call())
    again = model.complete(call())
    assert not first.cache_hit and again.cache_hit and again.content == first.content
    assert standin.stats()["completions"] == 1
    offline = Cached(None, cache, "standin-1", cache_only=True)
    assert offline.complete(call()).content == first.content
    with pytest.raises(CacheMiss, match="share call by ana"):
        offline.complete(call(seed=2))
    assert standin.stats()["completions"] == 1


# --- several processes writing at once ------------------------------------------------------------
def _writer(path: str, worker: int, keys: int, out: str, start) -> None:
    cache = ResponseCache(Path(path))
    cache.count()  # open the store before the race starts
    seen = {}
    start.wait(60)  # every writer begins together
    for n in range(keys):
        c = call(seed=n % (keys // 2))  # half the keys are shared with every other writer
        stored = cache.put(c.key("m"), "m", c, ChatReply(f"w{worker}-{n}", 1, 1, 0.0))
        seen[c.key("m")] = stored.content
        cache.spend("trial-1", 1)
    Path(out).write_text(json.dumps(seen))


def test_many_processes_write_at_once_and_agree(tmp_path):
    ctx = mp.get_context("spawn")
    outs = [tmp_path / f"seen{i}.json" for i in range(4)]
    start = ctx.Barrier(4)
    procs = [
        ctx.Process(target=_writer, args=(str(tmp_path / "c.sqlite"), i, 400, str(outs[i]), start))
        for i in range(4)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    seen = [json.loads(o.read_text()) for o in outs]
    cache = ResponseCache(tmp_path / "c.sqlite")
    assert cache.count() == 200  # 200 distinct keys, each stored once
    for key in seen[0]:  # every writer got back the one stored reply
        assert len({s[key] for s in seen}) == 1
        assert cache.get(key).content == seen[0][key]
    assert cache.spent("trial-1") == 1600
