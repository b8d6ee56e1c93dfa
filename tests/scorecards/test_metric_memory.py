"""`memory_noise`, `memory_load` (internal) and `isolation_violations` (a guardrail)."""

from __future__ import annotations

from typing import Any

import pytest
from scorecard_traces import frame

from scorecards.metrics.isolation_violations import isolation_violations
from scorecards.metrics.memory_load import memory_load
from scorecards.metrics.memory_noise import memory_noise


def _op(
    agent: str,
    op: str = "retrieve",
    *,
    experience: int | None = 1,
    owner: str | None = None,
    relevant: bool | None = True,
    size: int | None = None,
    capacity: int | None = None,
    tick: int = 10,
) -> dict[str, Any]:
    return {
        "agent": agent,
        "op": op,
        "experience_id": experience,
        "experience_owner": agent if owner is None else owner,
        "relevant": relevant,
        "size": size,
        "capacity": capacity,
        "tick": tick,
    }


def _episode(ops: list[dict]) -> dict:
    return {"memory_ops": frame("memory_ops", ops)}


def test_noise_is_the_share_of_retrievals_not_relevant() -> None:
    ops = [
        _op("bo", relevant=True),
        _op("bo", relevant=False),
        _op("bo", relevant=None),  # relevance unknown is not relevance
        _op("bo", relevant=True),
        _op("bo", experience=None, relevant=None),  # an empty retrieval returned nothing
        _op("bo", "write", relevant=False),  # not a retrieval
    ]
    assert memory_noise(_episode(ops)) == pytest.approx(2 / 4)


def test_noise_is_zero_without_retrievals_and_absent_without_memory_ops() -> None:
    assert memory_noise(_episode([_op("bo", "write")])) == 0.0
    assert memory_noise(_episode([])) is None
    assert memory_noise({}) is None


def test_load_is_the_mean_of_each_agents_last_size_over_capacity() -> None:
    ops = [
        _op("bo", "write", size=10, capacity=100, tick=5),
        _op("bo", "write", size=50, capacity=100, tick=9),  # bo's last: 0.5
        _op("bo", "retrieve", tick=12),  # no size: skipped
        _op("cy", "write", size=30, capacity=20, tick=3),  # over capacity: capped at 1
        _op("di", "write", size=0, capacity=0, tick=3),  # no capacity: skipped
    ]
    assert memory_load(_episode(ops)) == pytest.approx((0.5 + 1.0) / 2)
    assert memory_load(_episode([_op("bo")])) is None
    assert memory_load({}) is None


def test_retrieving_another_agents_experience_is_an_isolation_violation() -> None:
    clean = [_op("bo", experience=1), _op("cy", experience=2), _op("bo", experience=None)]
    assert isolation_violations(_episode(clean)) == 0.0
    planted = [*clean, _op("bo", experience=2, owner="cy"), _op("di", experience=3, owner="cy")]
    assert isolation_violations(_episode(planted)) == 2.0
    writes_only = [_op("bo", "write", owner="cy")]  # only retrievals are checked
    assert isolation_violations(_episode(writes_only)) == 0.0
    assert isolation_violations({}) is None
