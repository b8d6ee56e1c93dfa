"""The tick loop's indexes and buffers change how fast, never what: they agree with the plain
computation they replace, and the traces stay byte-identical."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import Episode, write_episode
from harness.agents import AGENT_KINDS
from harness.agents.reference import reference_agent
from harness.engine import recorder
from harness.engine.contract import Channel, Observation, ObservationKind
from harness.engine.positions import Position, Whereabouts
from harness.engine.rng import Draws
from harness.engine.ways import Ways
from policies import baseline_path, load_policy
from scenarios import load_scenario, village

PLACES = ["square", "bakery", "home_a", None]
NAMES = ["a", "b", "c", "d", "e"]


@given(
    st.lists(
        st.tuples(st.sampled_from(NAMES), st.sampled_from(PLACES), st.integers(0, 9)),
        max_size=40,
    )
)
def test_who_is_where_agrees_with_looking_at_everyone(moves):
    where = Whereabouts((n, Position("home_a")) for n in NAMES)
    for minute, (name, place, walk) in enumerate(moves):
        where[name] = Position(place) if place else Position(None, "square", minute + walk)
        for p in PLACES[:-1]:
            assert where.here(p) == sorted(n for n, pos in where.items() if pos.location == p)
        assert where.crowded == {p for p in PLACES[:-1] if len(where.here(p)) > 1}
        assert where.crowded_places() == sorted(where.crowded)
        due = sorted(
            n for n, pos in where.items() if pos.arrive_at is not None and pos.arrive_at <= minute
        )
        assert where.arriving(minute) == due
        for n in due:  # arrived, as the tick loop does
            where[n] = Position("square")


@given(
    st.floats(min_value=-0.5, max_value=1.5, allow_nan=False),
    st.lists(st.integers(0, (1 << 64) - 1), max_size=20),
)
def test_a_draw_is_below_a_chance_exactly_when_its_number_is_below_the_bar(chance, numbers):
    from harness.engine.rng import _SCALE, _bar

    bar = _bar(chance)
    for n in [*numbers, bar - 1, bar, bar + 1]:
        if 0 <= n < 1 << 64:
            assert (n / _SCALE < chance) == (n < bar)


def test_the_rows_an_observation_makes_name_their_tables_columns_in_order():
    from harness.engine.encounters import CHATTED, UTTERED
    from harness.engine.episode import EXPOSED, OBSERVED

    rec = recorder.Recorder("s", 0, 0, 1)
    assert (rec.columns("observations"), rec.columns("exposures")) == (OBSERVED, EXPOSED)
    assert (rec.columns("events"), rec.columns("utterances")) == (CHATTED, UTTERED)


def test_a_snapshots_rows_are_the_rows_of_its_samples():
    from harness.engine.diagnostics import StateSample, StateSnapshot, record

    variables, values = ("valence", "arousal", "joy"), (0.25, -0.0, 1.0)
    snapshot, plain = recorder.Recorder("s", 0, 0, 1), recorder.Recorder("s", 0, 0, 1)
    record("a", [StateSnapshot(7, 3, "a", variables, values)], snapshot)
    record(
        "a", [StateSample(7, 3, "a", v, x) for v, x in zip(variables, values, strict=True)], plain
    )
    assert snapshot.tables()["state"].equals(plain.tables()["state"])
    assert snapshot.tables()["state"].num_rows == 3


def test_a_crowds_draws_are_the_plain_draws():
    draws = Draws("village_10_s0", 3)
    agents = ["a0001", "a0002", "a0001", "a0003"]
    chances = (0.0, 0.3, 0.7, 1.0, 1.5)  # 1.5: every draw is below it
    crowds = [draws.crowd("encounter", agents, chance) for chance in chances]
    for minute in (517, 518):
        found = dict(draws.below_each(minute, crowds))
        for i, chance in enumerate(chances):
            plain = [a for a in agents if draws.uniform("encounter", a, minute) < chance]
            assert found.get(i, []) == plain
        series = draws.series("retrieval", "a0001", "plan", minute)
        for last in (0, 7, 12345):
            assert series(last) == draws.uniform("retrieval", "a0001", "plan", minute, last)


def parquet_bytes(tables: dict[str, pa.Table], tmp_path, name: str) -> dict[str, bytes]:
    write_episode(tmp_path / name, "s", 0, tables)
    return {
        str(p.relative_to(tmp_path / name)): p.read_bytes()
        for p in (tmp_path / name).rglob("*.parquet")
    }


def test_traces_do_not_depend_on_when_the_recorder_flushes(tmp_path, monkeypatch):
    scenario, policy = load_scenario("public_fact"), load_policy(baseline_path())
    whole = Episode(scenario, policy, 0, AGENT_KINDS["reference"]).run()
    monkeypatch.setattr(recorder, "FLUSH", 7)  # many small batches
    pieces = Episode(scenario, policy, 0, AGENT_KINDS["reference"]).run()
    assert max(t.num_rows for t in pieces.values()) > 7 * 3
    assert parquet_bytes(whole, tmp_path, "whole") == parquet_bytes(pieces, tmp_path, "pieces")


@pytest.mark.parametrize("until", [300, 1000])
def test_a_restore_mid_flush_continues_identically(until, monkeypatch):
    monkeypatch.setattr(recorder, "FLUSH", 5)
    scenario, policy = load_scenario("public_fact"), load_policy(baseline_path())
    straight = Episode(scenario, policy, 1, AGENT_KINDS["reference"]).run()
    first = Episode(scenario, policy, 1, AGENT_KINDS["reference"])
    first.run(until=scenario.start + until)
    resumed = Episode(scenario, policy, 1, AGENT_KINDS["reference"])
    resumed.set_state(first.get_state())
    again = resumed.run()
    assert all(again[name].equals(straight[name]) for name in straight)


class Shouting(Episode):
    """Every act is heard by all the others at once: agents woken mid-tick by an earlier
    one (no built-in action does that yet; a user's world may)."""

    def _execute(self, name, intent, now):
        super()._execute(name, intent, now)
        for other in self.agents:
            if other != name:
                sound = Observation(
                    ObservationKind.SOUND, now, self.new_event(), Channel.HEARD, "square"
                )
                self._deliver(other, sound)


class Scan:
    def _decisions(self, now):
        """The tick loop as it was: every agent looked at every tick, in name order."""
        for name, agent in self.agents.items():
            if self.wakes.wake.get(name, now) <= now:
                self._decide(name, agent, now)


class Scanning(Scan, Episode):
    pass


class ScanningShouting(Scan, Shouting):
    pass


def deciding(calls):
    """The reference agent, each of its decisions logged as (minute, agent)."""

    def factory(setup):
        agent = reference_agent(setup)
        decide = agent.decide
        agent.decide = lambda now: calls.append((now, setup.name)) or decide(now)
        return agent

    return factory


@pytest.mark.parametrize("scenario", [village(10, 0, hours=12), load_scenario("public_fact")])
def test_the_wake_heap_asks_agents_as_a_scan_of_every_agent_would(scenario):
    policy = load_policy(baseline_path())
    for kind, scan in ((Episode, Scanning), (Shouting, ScanningShouting)):
        heap_calls, scan_calls = [], []
        by_heap = kind(scenario, policy, 0, deciding(heap_calls)).run()
        by_scan = scan(scenario, policy, 0, deciding(scan_calls)).run()
        assert heap_calls == scan_calls
        assert all(by_heap[name].equals(by_scan[name]) for name in by_scan)
        ticks = (scenario.end - scenario.start) // scenario.tick_minutes + 1
        assert len(heap_calls) < ticks * len(scenario.agents) / 2  # idle agents skipped


def plain_shortest(roads, origin, destination):
    """The fresh search that stops at the destination, as the world once ran it."""
    import heapq

    if origin == destination:
        return (), 0
    best, previous, frontier = {origin: 0}, {}, [(0, origin)]
    while frontier:
        cost, here = heapq.heappop(frontier)
        if here == destination:
            path = [here]
            while path[-1] in previous and previous[path[-1]] != origin:
                path.append(previous[path[-1]])
            return tuple(path[::-1]), cost
        if cost > best.get(here, cost):
            continue
        for there, minutes in sorted(roads[here].items()):
            if cost + minutes < best.get(there, 1 << 60):
                best[there] = cost + minutes
                previous[there] = here
                heapq.heappush(frontier, (cost + minutes, there))
    return None


@given(
    st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(1, 3)), max_size=25),
    st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=30),
)
def test_resumed_searches_find_the_ways_a_fresh_search_finds(edges, questions):
    # short roads of 1-3 minutes: many ties; dead ends and unreachable places included
    roads = {f"p{i}": {} for i in range(10)}
    for a, b, minutes in edges:
        if a != b:
            roads[f"p{a}"][f"p{b}"] = roads[f"p{b}"][f"p{a}"] = minutes
    ways = Ways(roads)
    for a, b in questions:
        assert ways.way(f"p{a}", f"p{b}") == plain_shortest(roads, f"p{a}", f"p{b}")


@given(
    st.sampled_from(["partner", "retrieval", "share"]),
    st.sampled_from(["a0001", "a0002", "ana"]),
    st.lists(st.one_of(st.integers(-5, 10**6), st.text(max_size=5)), max_size=4),
)
def test_draws_with_a_head_fed_once_are_the_plain_digest(purpose, agent, key):
    import hashlib

    draws = Draws("village_10_s0", 3)
    text = "\x1f".join([purpose, agent, *map(str, key)]).encode()
    digest = hashlib.blake2b(b"village_10_s0\x1f3\x1f" + text, digest_size=8).digest()
    plain = int.from_bytes(digest, "big") / float(1 << 64)
    assert draws.uniform(purpose, agent, *key) == plain
    assert draws.uniform(purpose, agent, *key) == plain  # again, from the kept head


def test_buffered_rows_leave_the_garbage_collector_nothing_to_sweep():
    # a row waits as values appended to column lists, not as a tuple the collector tracks:
    # a big village's trace once made it sweep the whole heap a dozen times a day
    import gc

    rec = recorder.Recorder("s", 0, 0, 1)
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        for i in range(5_000):
            rec.add("events", i, i, kind="chat", place="square", agent="a", detail="b")
        grown = len(gc.get_objects()) - before
    finally:
        gc.enable()
    assert grown < 100
    table = rec.tables()["events"]
    assert table.num_rows == 5_000 and table["tick"].to_pylist()[-1] == 4_999


def test_a_write_row_made_by_position_is_the_row_made_by_name():
    from harness.agents.reference.memory import memory_op
    from harness.agents.reference.model import memory as mem
    from harness.engine.diagnostics import MemoryOp

    store = mem.Memory("ana", 3)
    exp, _ = mem.write(store, 7, 2, channel="seen", subject="square", importance=0.4)
    named = MemoryOp(
        7,
        2,
        "ana",
        "write",
        experience_id=exp.id,
        experience_owner="ana",
        subject="square",
        importance=0.4,
        size=1,
        capacity=3,
    )
    assert memory_op("ana", store, 7, 2, "write", exp) == named
    assert memory_op("ana", store, 7, 2, "retrieve", exp, rank=0).rank == 0


def test_a_writes_and_a_recalls_rows_made_by_position_are_the_rows_made_by_name():
    from harness.agents.reference.context import Diagnostics
    from harness.agents.reference.memory import Memory, memory_op
    from harness.agents.reference.model import memory as mem
    from harness.engine.diagnostics import MemoryOp

    scenario = load_scenario("public_fact")
    episode = Episode(scenario, load_policy(baseline_path()), 0, AGENT_KINDS["reference"])
    ctx = episode.agents[scenario.agents[0].id].ctx
    memory = Memory(ctx, Diagnostics())
    for minute, subject in enumerate(("square", "square", "well", "square")):
        memory.write(minute, 0, channel="seen", subject=subject, importance=0.9)
    query = mem.Query("square", "plan")
    recalled = memory.recall(query, 5, 0.0)
    assert recalled  # something comes to mind, so rows by position are made
    named = []
    for rank, r in enumerate(recalled):
        row = memory_op(
            ctx.name,
            memory.store,
            5,
            0,
            "retrieve",
            r.experience,
            purpose="plan",
            rank=rank,
            relevant=r.relevant,
        )
        named.append(row)
    rows = [r for r in memory.log.drain() if r.op == "retrieve"]
    assert rows == named and [vars(r) for r in rows] == [vars(r) for r in named]
    exp, _ = memory.write(6, 3, channel="heard", subject="bo", importance=0.1)
    (row,) = memory.log.drain()
    store = memory.store
    named = MemoryOp(
        6,
        3,
        ctx.name,
        "write",
        experience_id=exp.id,
        experience_owner=ctx.name,
        subject="bo",
        importance=0.1,
        size=len(store.experiences),
        capacity=store.capacity,
    )
    assert vars(row) == vars(named)


def test_an_episode_collects_cycles_rarely_and_restores_the_collector(monkeypatch):
    """While the tick loop runs, a young collection waits for `YOUNG` allocations; after it
    (finished or stopped by an error) the process's thresholds are as they were."""
    import gc

    from harness.engine import collecting

    seen = []
    real_step = Episode.step

    def step(self, now):
        seen.append(gc.get_threshold())
        if len(seen) == 3:
            raise RuntimeError("an agent's bug")
        return real_step(self, now)

    before = gc.get_threshold()
    episode = Episode(load_scenario("rumor"), load_policy(baseline_path()), 0, reference_agent)
    monkeypatch.setattr(Episode, "step", step)
    with pytest.raises(RuntimeError, match="an agent's bug"):
        episode.run()
    assert seen and all(t == (collecting.YOUNG, *before[1:]) for t in seen)
    assert gc.get_threshold() == before


def test_a_frozen_heap_is_left_out_of_collections_until_the_block_ends():
    """A search driver freezes what it started with (the imported stack, the stores) and
    gives it back to the collector when the search ends, stopped by an error or not."""
    import gc

    from harness.engine.collecting import heap_frozen

    assert gc.get_freeze_count() == 0
    with pytest.raises(KeyError), heap_frozen():
        assert gc.get_freeze_count() > 0
        raise KeyError("a trial's bug")
    assert gc.get_freeze_count() == 0
