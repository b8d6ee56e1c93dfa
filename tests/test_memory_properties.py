"""Properties of retrieval: never more than top-k, deterministic, owner-only, may be empty."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.agents.reference.model.memory import Memory, Query, retrieve, write
from harness.engine.rng import Draws
from policies import Policy

SUBJECTS = ("bakery", "bridge", "square", "ana", "bo")

experiences = st.lists(
    st.tuples(
        st.integers(0, 3000), st.sampled_from(SUBJECTS), st.floats(0.0, 1.0), st.floats(-1.0, 1.0)
    ),
    max_size=40,
)
policies = st.builds(
    lambda k, rel, rec, thr: Policy(
        {
            "retrieval.top_k": k,
            "retrieval.relevance_weight": rel,
            "retrieval.recency_weight": rec,
            "memory.importance_threshold": thr,
        }
    ),
    st.integers(1, 20),
    st.floats(0.0, 3.0),
    st.floats(0.0, 3.0),
    st.floats(0.0, 1.0),
)


def build(items) -> Memory:
    memory = Memory("ana", 1000)
    for minute, subject, importance, valence in sorted(items):
        write(
            memory,
            minute,
            0,
            channel="seen",
            subject=subject,
            importance=round(importance, 3),
            valence=valence,
        )
    return memory


@settings(max_examples=150, deadline=None)
@given(
    items=experiences,
    policy=policies,
    subject=st.sampled_from(SUBJECTS),
    now=st.integers(3000, 20000),
    mood=st.floats(-1.0, 1.0),
    seed=st.integers(0, 9),
)
def test_retrieval_is_bounded_deterministic_and_owner_only(items, policy, subject, now, mood, seed):
    memory = build(items)
    noise = Draws("props", seed)
    got = retrieve(memory, Query(subject, "plan"), now, policy, noise, mood)
    assert len(got) <= int(policy["retrieval.top_k"])
    assert all(r.experience.owner == "ana" for r in got)
    assert len({r.experience.id for r in got}) == len(got)
    again = retrieve(build(items), Query(subject, "plan"), now, policy, Draws("props", seed), mood)
    assert [r.experience.id for r in again] == [r.experience.id for r in got]
    assert all(r.relevant == (r.experience.subject == subject) for r in got)


def test_retrieval_may_return_nothing():
    memory = build([(0, "ana", 0.05, 0.0), (10, "bo", 0.1, 0.0)])
    quiet = Policy({"retrieval.relevance_weight": 0.0, "memory.importance_threshold": 1.0})
    assert retrieve(memory, Query("bakery", "plan"), 50_000, quiet, Draws("x", 0)) == []


@settings(max_examples=50, deadline=None)
@given(valence=st.floats(0.3, 1.0))
def test_mood_brings_congruent_memories_up_first(valence):
    memory = Memory("ana", 10)
    write(memory, 0, 0, channel="seen", subject="square", importance=0.5, valence=valence)
    write(memory, 0, 0, channel="seen", subject="square", importance=0.5, valence=-valence)
    policy = Policy({"retrieval.top_k": 1})
    happy = retrieve(memory, Query("square", "plan"), 10, policy, Draws("m", 1), mood=1.0)
    sad = retrieve(memory, Query("square", "plan"), 10, policy, Draws("m", 1), mood=-1.0)
    assert happy[0].experience.valence > 0 > sad[0].experience.valence
