"""Eviction from a full memory picks exactly what a scan of every experience would pick, while
time passes, memories are used (strengthened) and merged into summaries between writes; and
retrieval, which draws no noise for an experience that stays below the bar, or out of the top
k, whatever its noise, recalls what drawing every noise recalls."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.agents.reference.model import memory as mem

steps = st.lists(
    st.tuples(
        st.sampled_from(("write", "write", "write", "use", "summarise")),
        st.integers(0, 400),  # minutes since the previous step
        st.sampled_from((0.0, 0.1, 0.25, 0.5, 0.9, 1.0)),  # importance (ties on purpose)
        st.integers(0, 5),  # proposition
    ),
    max_size=250,
)


def scan_victim(memory: mem.Memory, now: int) -> int:
    """The old way: the least key over every experience."""
    return min(memory.experiences.values(), key=lambda e: mem.eviction_key(memory, e, now)).id


@settings(max_examples=120, deadline=None)
@given(steps=steps, capacity=st.integers(1, 12))
def test_the_heap_evicts_what_a_full_scan_evicts(steps, capacity):
    memory, now = mem.Memory("ana", capacity), 0
    for action, gap, importance, prop in steps:
        now += gap
        if action == "use":
            mem.strengthen(memory, list(memory.experiences.values())[::2], now)
            continue
        if action == "summarise":
            mem.summarise(memory, now, 0, 60, keep_source=True)
            continue
        fields = {"channel": "seen", "subject": "square", "importance": importance}
        if len(memory.experiences) >= capacity:  # this write evicts: predict it by a scan
            twin = mem.Memory.from_json(memory.to_json())
            probe = mem.Experience(id=twin.next_id, owner="ana", minute=now, event_id=0, **fields)
            twin.experiences[probe.id] = probe
            twin.strength[probe.id] = mem.BASE_STRENGTH * (1.0 + importance)
            expected = scan_victim(twin, now)
            _, evicted = mem.write(memory, now, 0, proposition=f"p{prop}", **fields)
            assert [e.id for e in evicted] == [expected]
        else:
            _, evicted = mem.write(memory, now, 0, proposition=f"p{prop}", **fields)
            assert evicted == []
        assert len(memory.experiences) <= capacity


def plain_retrieve(memory, query, now, policy, noise, mood):
    """Retrieval as it was first written: every experience scored, its noise drawn."""
    draw = noise.series("retrieval", memory.owner, query.purpose, now)
    scored = []
    for exp in memory.experiences.values():
        related = 0.5 if exp.subject in query.related else 0.0
        relevance = 1.0 if exp.subject == query.subject else related
        if query.proposition is not None and exp.proposition != query.proposition:
            relevance /= 2
        activation = (
            float(policy["retrieval.recency_weight"]) * mem.retention(memory, exp, now)
            + mem.IMPORTANCE_WEIGHT * exp.importance
            + float(policy["retrieval.relevance_weight"]) * relevance
            + mem.MOOD_WEIGHT * mood * exp.valence
            + (mem.SALIENT_BONUS if exp.importance >= policy["memory.importance_threshold"] else 0)
            + mem.NOISE * (draw(exp.id) - 0.5)
        )
        if activation >= mem.MIN_ACTIVATION:
            scored.append((-activation, exp.id, exp, relevance > 0))
    scored.sort()
    return [(exp.id, relevant) for _, _, exp, relevant in scored[: policy["retrieval.top_k"]]]


@settings(max_examples=80, deadline=None)
@given(
    writes=st.lists(
        st.tuples(
            st.integers(0, 900),  # minutes since the previous write
            st.sampled_from((0.0, 0.1, 0.3, 0.55, 0.6, 0.9)),  # importance
            st.sampled_from(("square", "market", "well")),
            st.integers(0, 3),  # proposition
            st.sampled_from((-1.0, -0.2, 0.0, 0.4, 1.0)),  # valence
        ),
        max_size=60,
    ),
    later=st.integers(0, 3000),
    mood=st.sampled_from((-0.8, 0.0, 0.5)),
    proposition=st.sampled_from((None, "p1")),
    top_k=st.integers(1, 6),
)
def test_retrieval_that_skips_hopeless_noise_draws_recalls_what_drawing_all_recalls(
    writes, later, mood, proposition, top_k
):
    from harness.engine.rng import Draws

    policy = {
        "retrieval.top_k": top_k,
        "retrieval.relevance_weight": 0.4,
        "retrieval.recency_weight": 0.3,
        "memory.importance_threshold": 0.6,
    }
    memory, now, noise = mem.Memory("ana", 100), 0, Draws("s", 1)
    for gap, importance, subject, prop, valence in writes:
        now += gap
        mem.write(
            memory,
            now,
            0,
            channel="seen",
            subject=subject,
            importance=importance,
            proposition=f"p{prop}",
            valence=valence,
        )
    query = mem.Query("square", "plan", related=("market",), proposition=proposition)
    got = mem.retrieve(memory, query, now + later, policy, noise, mood)
    expected = plain_retrieve(memory, query, now + later, policy, noise, mood)
    assert [(r.experience.id, r.relevant) for r in got] == expected


class Extremes:
    """Noise at its ends, the lowest draw for one parity of ids and the highest for the other:
    an experience as far behind as the noise's width allows may still come out ahead."""

    def __init__(self, lifted: int) -> None:
        self.lifted = lifted

    def series(self, *key: object):
        return lambda exp_id: 1.0 - 2.0**-53 if exp_id % 2 == self.lifted else 0.0


@settings(max_examples=150, deadline=None)
@given(
    importances=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40),
    top_k=st.integers(1, 6),
    lifted=st.integers(0, 1),
)
def test_retrieval_skips_no_experience_that_the_noise_could_bring_into_the_top_k(
    importances, top_k, lifted
):
    policy = {
        "retrieval.top_k": top_k,
        "retrieval.relevance_weight": 0.4,
        "retrieval.recency_weight": 0.3,
        "memory.importance_threshold": 2.0,  # no salience bonus: activations close together
    }
    memory = mem.Memory("ana", 100)
    for importance in importances:
        mem.write(memory, 0, 0, channel="seen", subject="square", importance=importance)
    query, noise = mem.Query("square", "plan"), Extremes(lifted)
    got = mem.retrieve(memory, query, 0, policy, noise)
    assert [(r.experience.id, r.relevant) for r in got] == plain_retrieve(
        memory, query, 0, policy, noise, 0.0
    )
