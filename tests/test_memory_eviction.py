"""Eviction from a full memory picks exactly what a scan of every experience would pick, while
time passes, memories are used (strengthened) and merged into summaries between writes."""

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
